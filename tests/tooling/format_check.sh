#!/usr/bin/env bash
# The C sources follow .clang-format. Formatting differs between
# clang-format versions, so the check runs with the one Debian 12 ships (14)
# and is skipped (exit 77) without it or outside a git checkout.
set -uo pipefail
cd "${LINEUP_SRC:?}" || exit 2
fmt=$(command -v clang-format-14 || command -v clang-format) || { echo "SKIP: no clang-format"; exit 77; }
case "$("$fmt" --version)" in
*" version 14."*) ;;
*) echo "SKIP: $("$fmt" --version) is not clang-format 14"; exit 77 ;;
esac
files=$(git ls-files '*.c' '*.h' 2>/dev/null) || { echo "SKIP: not a git checkout"; exit 77; }
[ -n "$files" ] || { echo "SKIP: no tracked sources"; exit 77; }
bad=0
for f in $files; do
    if ! "$fmt" --dry-run --Werror "$f" >/dev/null 2>&1; then
        echo "not formatted: $f (clang-format -i $f)"
        bad=1
    fi
done
exit $bad
