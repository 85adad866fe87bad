#!/bin/sh
# the expected report for the repository as shipped
expected='src/api.py 3
src/app.py 2
src/store/disk.py 1'
if [ ! -f todo-report.txt ]; then
    echo "todo-report.txt is missing" >&2
    exit 1
fi
actual=$(sed 's/[[:space:]]*$//' todo-report.txt | grep -v '^$')
if [ "$actual" != "$expected" ]; then
    echo "todo-report.txt is:" >&2
    cat todo-report.txt >&2
    exit 1
fi
