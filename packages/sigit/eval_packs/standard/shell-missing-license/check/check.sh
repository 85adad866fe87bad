#!/bin/sh
expected='src/svc/db.py
src/svc/legacy/old api.py
src/svc/util/__init__.py
src/svc/util/strings.py
src/svc/util/time.py'
[ -f missing-license.txt ] || { echo "missing-license.txt is missing" >&2; exit 1; }
actual=$(sed -e 's/[[:space:]]*$//' -e 's|^\./||' missing-license.txt | grep -v '^$')
if [ "$actual" != "$expected" ]; then
    echo "missing-license.txt is:" >&2
    cat missing-license.txt >&2
    exit 1
fi
head -n 1 src/svc/api.py | grep -qx '# SPDX-License-Identifier: Apache-2.0' || { echo "api.py changed" >&2; exit 1; }
[ "$(cat src/svc/util/strings.py)" = "$(printf 'def up(s):\n    return s.upper()')" ] || { echo "strings.py changed" >&2; exit 1; }
