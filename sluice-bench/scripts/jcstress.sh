#!/usr/bin/env bash
# The jcstress tests of sluice-jcstress at length (verify runs them once, briefly).
# Usage: sluice-bench/scripts/jcstress.sh [jcstress options]   (from anywhere)
#   default options: -m quick (every JVM configuration jcstress picks, split compilation)
#   e.g. sluice-bench/scripts/jcstress.sh -m default   (longer: more forks and iterations)
#        JCSTRESS_TESTS='org\.sluice\.shm\..*' sluice-bench/scripts/jcstress.sh
# The report (index.html, one page per test) lands in sluice-jcstress/target/jcstress/results.
# Exits non-zero when a test saw a forbidden outcome or failed to run.
set -euo pipefail
cd "$(dirname "$0")/../.."
args="${*:--m quick}"
echo "load before: $(uptime)"
mvn -B -ntp -pl sluice-jcstress -am integration-test \
  -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false \
  -Djcstress.tests="${JCSTRESS_TESTS:-org\\.sluice\\..*}" -Djcstress.args="$args"
echo "load after: $(uptime)"
echo "report: sluice-jcstress/target/jcstress/results/index.html"
