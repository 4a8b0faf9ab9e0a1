#!/bin/bash
# usage: mutate.sh NAME FILE PYTHON_OLD PYTHON_NEW TESTS
cd /work/mut
name=$1; file=$2; old=$3; new=$4; tests=$5
git checkout -q -- .
python3 - "$file" "$old" "$new" <<'PY'
import sys
p,old,new=sys.argv[1:4]
s=open(p).read()
assert old in s, "mutation text not found: "+old[:60]
s=s.replace(old,new,1)
open(p,'w').write(s)
PY
[ $? -ne 0 ] && { echo "$name: NOT APPLIED"; exit 1; }
git diff --stat | tail -1
./mvnw -B -ntp verify -Dtest="$tests" -Drbac-check.partial-run=true -Dsurefire.failIfNoSpecifiedTests=false -Dspotless.check.skip=true > /tmp/mut-$name.log 2>&1
echo "$name: rc=$? $(grep -E 'Tests run:.*Fail' /tmp/mut-$name.log | tail -1)"
grep -E "^\[ERROR\]   [A-Za-z]+.*:[0-9]+" /tmp/mut-$name.log | head -5
git checkout -q -- .
