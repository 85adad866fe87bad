#!/bin/sh
[ -f scripts/levels.sh ] || { echo "scripts/levels.sh is missing" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/app log.txt" <<'LOG'
2024-06-01T00:00:00 DEBUG a
2024-06-01T00:00:01 ERROR b c d
2024-06-01T00:00:02 INFO e
2024-06-01T00:00:03 ERROR f
2024-06-01T00:00:04 WARN g
2024-06-01T00:00:05 INFO h
2024-06-01T00:00:06 ERROR i
LOG
expected='ERROR 3
INFO 2
DEBUG 1
WARN 1'
actual=$(sh scripts/levels.sh "$work/app log.txt" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')
[ "$actual" = "$expected" ] || { printf 'for the check log got:\n%s\n' "$actual" >&2; exit 1; }
actual=$(sh scripts/levels.sh logs/sample.log | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')
[ "$actual" = "$(printf 'INFO 3\nERROR 2\nWARN 1')" ] || { printf 'for sample.log got:\n%s\n' "$actual" >&2; exit 1; }
