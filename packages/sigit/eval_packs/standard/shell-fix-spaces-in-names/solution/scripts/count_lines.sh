#!/bin/sh
# usage: count_lines.sh DIR
# prints "LINES NAME" for each regular file directly in DIR, sorted by name
dir=$1
for f in "$dir"/*; do
    [ -f "$f" ] || continue
    n=$(wc -l < "$f" | tr -d ' ')
    echo "$n ${f##*/}"
done
