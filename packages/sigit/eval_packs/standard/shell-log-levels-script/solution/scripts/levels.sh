#!/bin/sh
# usage: levels.sh LOG -- "LEVEL COUNT" per level, most frequent first, then by name
awk '{ print $2 }' "$1" | sort | uniq -c | awk '{ print $2, $1 }' | sort -k2,2nr -k1,1
