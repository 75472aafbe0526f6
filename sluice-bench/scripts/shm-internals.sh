#!/usr/bin/env bash
# JMH benchmarks of sluice-shm's package-private internals (KeyHashBench: the table's keyed
# hash; MappedWordsBench: one operation on the mapped table). They live with sluice-shm's
# tests, which share the package, and run from its test classpath; the public API's
# benchmarks stay in sluice-bench (benchmarks.jar).
#
#   sluice-bench/scripts/shm-internals.sh                       # both, default options
#   sluice-bench/scripts/shm-internals.sh 'KeyHashBench' -f 1 -wi 3 -w 1s -i 5 -r 1s
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
MVN_FLAGS=${MVN_FLAGS:--B -ntp -q}
# one reactor run: sluice-core and the testkit resolve to their freshly built classes
mvn $MVN_FLAGS -pl sluice-shm -am test-compile dependency:build-classpath \
  -Dmdep.includeScope=test -Dmdep.outputFile=target/test-classpath.txt >/dev/null
cp_file="$root/sluice-shm/target/test-classpath.txt"
cp="$root/sluice-shm/target/test-classes:$root/sluice-shm/target/classes:$(cat "$cp_file")"
if [ $# -eq 0 ]; then
  set -- 'KeyHashBench|MappedWordsBench' -f 1 -wi 3 -w 1s -i 5 -r 1s
fi
exec java -cp "$cp" org.openjdk.jmh.Main "$@"
