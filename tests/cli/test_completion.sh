#!/usr/bin/env bash
# The bash completion the build generates (tools/bash-completion.sh; installed as
# share/bash-completion/completions/tra) knows every verb and every flag that `tra --help` and
# `tra VERB --help` show, and completes them when sourced; the man page (tools/man-page.sh)
# has a section for every verb.
# Usage: bash test_completion.sh TRA_BINARY SOURCE_DIR WORK_DIR
set -uo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" cli completion "$@"
: "$SRC"

count_failures

enter_work_dir

# Both are generated next to the binary's folder (cmake/TraInstall.cmake).
build=$(cd "$(dirname "$TRA")/.." && pwd)
completion=$build/completion/tra
man_page=$build/man/tra.1
[ -f "$completion" ] || { fail "no generated completion at $completion"; finish_counted ""; }

verbs=$("$TRA" --help | awk '/^Subcommands:/ {s = 1; next} s && /^  [a-z]/ {print $1}')
[ "$(echo "$verbs" | wc -w)" -ge 8 ] || fail "expected at least 8 verbs in tra --help: $verbs"
help_flags() {
    "$@" --help | awk '/^ +-/ {n = split($1, names, ","); for (i = 1; i <= n; i++) print names[i]}'
}
checked=0
for flag in $(help_flags "$TRA"); do
    grep -qw -e "$flag" "$completion" || fail "flag $flag of tra --help is not in the completion"
    checked=$((checked + 1))
done
for verb in $verbs; do
    grep -qw "$verb" "$completion" || fail "verb $verb is not in the completion"
    # The verb's own list, so a flag of one verb does not count for another.
    words=$(grep -E "^    $verb\) words=" "$completion")
    words=${words#*words=\"}
    words=${words%%\"*}
    for flag in $(help_flags "$TRA" "$verb"); do
        [[ " $words " == *" $flag "* ]] ||
            fail "flag $flag of tra $verb --help is not completed after $verb"
        checked=$((checked + 1))
    done
    if [ -f "$man_page" ]; then
        grep -q "^\.SS $verb$" "$man_page" || fail "the man page has no section for $verb"
    fi
done

# Sourced in bash, it completes a verb, a flag of that verb and a flag's values.
# shellcheck disable=SC1090
source "$completion"
complete_words() {
    COMP_WORDS=("$@")
    COMP_CWORD=$(($# - 1))
    COMPREPLY=()
    _tra
    echo "${COMPREPLY[*]}"
}
[ "$(complete_words tra ru)" = "run" ] || fail "'tra ru<TAB>' gave '$(complete_words tra ru)'"
[[ " $(complete_words tra run w.yaml --ref) " == *" --reference "* ]] ||
    fail "'tra run w.yaml --ref<TAB>' gave '$(complete_words tra run w.yaml --ref)'"
[ "$(complete_words tra plan w.yaml --cost '')" = "exact paper time" ] ||
    fail "'tra plan w.yaml --cost <TAB>' gave '$(complete_words tra plan w.yaml --cost '')'"

finish_counted "completion: $(echo "$verbs" | wc -w) verbs, $checked flags checked"
