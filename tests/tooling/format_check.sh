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
# one clang-format for every file: a process per file took half a minute
# where starting a process is slow
# shellcheck disable=SC2086 # the tracked paths have no spaces
out=$("$fmt" --dry-run --Werror $files 2>&1) && exit 0
listed=$(sed -n 's/^\([^: ]*\.[ch]\):[0-9]*:[0-9]*: .*-Wclang-format-violations.*/\1/p' <<<"$out" | sort -u)
[ -n "$listed" ] || { echo "clang-format failed:"; echo "$out"; exit 1; }
for f in $listed; do
    echo "not formatted: $f (clang-format -i $f)"
done
exit 1
