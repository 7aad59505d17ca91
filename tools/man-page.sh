#!/usr/bin/env bash
# Writes tra's man page from the binary's own help, so it never drifts from the CLI: help2man
# turns `tra --help` into NAME, SYNOPSIS and OPTIONS, and each verb's `tra VERB --help` becomes
# a subsection of VERBS. The build runs it (cmake/TraInstall.cmake).
# Usage: tools/man-page.sh TRA_BINARY OUT_FILE [HELP2MAN]
set -euo pipefail
tra=${1:?usage: man-page.sh TRA_BINARY OUT_FILE [HELP2MAN]}
out=${2:?usage: man-page.sh TRA_BINARY OUT_FILE [HELP2MAN]}
help2man=${3:-help2man}

# The verbs are the names listed under "Subcommands:" in CLI11's help.
verbs=$("$tra" --help | awk '/^Subcommands:/ {s = 1; next} s && /^  [a-z]/ {print $1}')
[ -n "$verbs" ] || { echo "man-page.sh: no verbs in $tra --help" >&2; exit 1; }
# --version's first line only: the rest names the build machine's libraries, which do not
# belong in a man page.
version=$("$tra" --version | head -n 1)

include=$(mktemp)
trap 'rm -f "$include"' EXIT
{
    echo "[VERBS]"
    for verb in $verbs; do
        echo ".SS $verb"
        echo ".nf"
        # Verbatim, with roff's escape character and leading control characters neutralised.
        # argv[0] is what CLI11 prints after "Usage:": "tra", not the build folder's path.
        PATH="$(dirname "$tra"):$PATH" tra "$verb" --help | sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/"
        echo ".fi"
    done
    echo "[FILES]"
    echo ".TP"
    echo ".I PREFIX/share/tra/plans, PREFIX/share/tra/data"
    echo "Example workflows and their inputs (PREFIX is /usr for the package). An install is"
    echo "read-only: run them with"
    echo ".B --out-dir DIR"
    echo "so outputs are written under DIR."
    echo "[SEE ALSO]"
    echo "The full documentation is in"
    echo ".IR /usr/share/doc/tra ."
} > "$include"

mkdir -p "$(dirname "$out")"
"$help2man" --no-info --no-discard-stderr --version-string="${version#tra }" \
    --name="declarative distributed tensor computation" --include="$include" \
    --output="$out" "$tra"
