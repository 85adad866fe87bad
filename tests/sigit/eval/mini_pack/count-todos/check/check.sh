#!/bin/sh
# the answer is 3: one TODO line in a.txt, two in b.txt
test -f count.txt || { echo "count.txt is missing"; exit 1; }
answer=$(tr -d ' \n' < count.txt)
[ "$answer" = "3" ] || { echo "count.txt says '$answer', not 3"; exit 1; }
echo ok
