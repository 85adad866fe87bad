#!/bin/sh
# usage: count_lines.sh DIR
# prints "LINES NAME" for each regular file directly in DIR, sorted by name
dir=$1
for f in $(ls $dir); do
    n=$(wc -l < $dir/$f)
    echo "$n $f"
done
