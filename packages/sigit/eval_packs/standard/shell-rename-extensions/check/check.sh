#!/bin/sh
status=0
left=$(find notes -name '*.markdown')
if [ -n "$left" ]; then
    echo "still there: $left" >&2
    status=1
fi
for pair in "2024-01-standup.md:# Standup" "2024-02-retro.md:# Retro" "archive/2023-12-plan.md:# Plan" "index.md:# Notes"; do
    file="notes/${pair%%:*}"
    title="${pair#*:}"
    if [ ! -f "$file" ] || [ "$(head -n 1 "$file")" != "$title" ]; then
        echo "$file is missing or changed" >&2
        status=1
    fi
done
[ "$(sed -n 3p notes/2024-01-standup.md)" = "- ship it" ] || { echo "standup lost its content" >&2; status=1; }
[ "$(find notes -type f | wc -l | tr -d ' ')" = 4 ] || { echo "notes/ should hold exactly 4 files" >&2; status=1; }
exit $status
