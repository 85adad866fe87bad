#!/bin/sh
[ -f error-codes.txt ] || { echo "error-codes.txt is missing" >&2; exit 1; }
expected='E0007
E0300
E1042
E2210'
actual=$(sed 's/[[:space:]]*$//' error-codes.txt | grep -v '^$')
[ "$actual" = "$expected" ] || { echo "error-codes.txt is:" >&2; cat error-codes.txt >&2; exit 1; }
