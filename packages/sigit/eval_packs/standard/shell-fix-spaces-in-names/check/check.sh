#!/bin/sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/my docs" "$work/my docs/sub dir"
printf 'a\nb\nc\n' > "$work/my docs/three lines.txt"
printf 'x\n' > "$work/my docs/one.txt"
printf 'q\nq\n' > "$work/my docs/sub dir/nested.txt"
expected='1 one.txt
3 three lines.txt'
actual=$(sh scripts/count_lines.sh "$work/my docs" 2>&1 | sed 's/^[[:space:]]*//')
if [ "$actual" != "$expected" ]; then
    printf 'got:\n%s\n' "$actual" >&2
    exit 1
fi
