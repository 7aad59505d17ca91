# Sourced by the sanitizer and fuzz stages: sanitizer settings for every process of a run.
# Reports go to files under $TRA_SANITIZER_LOGS (one per process) as well as stderr, so a
# finding in a process whose exit code a test expects to be non-zero is still caught: the
# stage fails when the folder is not empty afterwards.
# Usage: source tools/sanitize/env.sh LOG_DIR
sanitize_root=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export TRA_SANITIZER_LOGS=${1:?usage: source tools/sanitize/env.sh LOG_DIR}
mkdir -p "$TRA_SANITIZER_LOGS"
export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-14/bin/llvm-symbolizer
# intercept_tls_get_addr=0: clang 14's LeakSanitizer misreads glibc 2.36's dynamic TLS vector
# ("DTLS 10 at 0x000000000c57-0x000400001d59", then "Tracer caught signal 11" at exit, after
# every assertion passed), depending only on which modules with TLS are loaded. Untracked
# dynamic TLS can only add leak reports, never hide one.
export ASAN_OPTIONS="log_path=$TRA_SANITIZER_LOGS/asan:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:abort_on_error=0:intercept_tls_get_addr=0"
export LSAN_OPTIONS="suppressions=$sanitize_root/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="log_path=$TRA_SANITIZER_LOGS/ubsan:print_stacktrace=1:halt_on_error=1"
# MPI's components stay loaded to the end, so their leaks can be named (keep_modules_loaded.c).
keep_loaded="$TRA_SANITIZER_LOGS/../keep_modules_loaded.so"
clang-14 -shared -fPIC -O2 -Wall -Wextra -Werror -o "$keep_loaded" \
    "$sanitize_root/keep_modules_loaded.c"
export LD_PRELOAD="$(cd "$(dirname "$keep_loaded")" && pwd)/keep_modules_loaded.so"
