#!/usr/bin/env bash
# Runs every Jazzer fuzz target as a fuzzer, one after the other, SECONDS each.
#
#   sluice-bench/scripts/fuzz.sh [SECONDS] [TARGET...]
#
# SECONDS defaults to 30. TARGET is a fuzz test class name (e.g. ConfigLoaderFuzzTest);
# without one, every target in the list below runs. A finding fails the run (exit 1):
# Jazzer prints the stack trace and writes the input as crash-<sha1> into the target's
# inputs directory (src/test/resources/<package>/<Class>Inputs/<method>/), where the
# next `mvn verify` replays it as a regression test. The corpus a run grows is kept in
# <module>/.cifuzz-corpus/ (not committed) and the next run starts from it.
#
# In a plain `mvn verify` the same tests run without fuzzing: once per checked-in input.
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=${1:-30}
shift || true
[[ "$seconds" =~ ^[0-9]+$ ]] && [ "$seconds" -ge 1 ] || { echo "fuzz: SECONDS must be a positive integer, got '$seconds'" >&2; exit 2; }

# module:class:the packages whose code the fuzzer instruments for coverage (colon-free globs, comma-separated)
targets=(
  "sluice-core:org.sluice.core.LimitParseFuzzTest:org.sluice.**"
  "sluice-shm:org.sluice.shm.ArenaAttachFuzzTest:org.sluice.**"
  "sluice-edge:org.sluice.edge.verify.VerifierFuzzTest:org.sluice.**"
  "sluice-edge:org.sluice.edge.dedupe.JsonPathKeyFuzzTest:org.sluice.**,com.fasterxml.jackson.core.**"
  "sluice-edge:org.sluice.edge.route.FilterFuzzTest:org.sluice.**,com.google.re2j.**,com.fasterxml.jackson.core.**"
  "sluice-edge:org.sluice.edge.route.TransformFuzzTest:org.sluice.**,com.fasterxml.jackson.core.**"
  "sluice-edge:org.sluice.edge.config.ConfigLoaderFuzzTest:org.sluice.**,com.fasterxml.jackson.dataformat.yaml.**,org.yaml.snakeyaml.**"
  "sluice-edge:org.sluice.edge.server.IngestFuzzTest:org.sluice.**,io.netty.handler.codec.http.**"
  "sluice-edge:org.sluice.edge.server.RefusalFastPathFuzzTest:org.sluice.**,io.netty.handler.codec.http.**"
  "sluice-edge:org.sluice.edge.delivery.nats.NatsReplyFuzzTest:org.sluice.**,io.nats.client.support.**"
  "sluice-edge:org.sluice.edge.delivery.nats.NatsReplySubjectFuzzTest:org.sluice.**"
  "sluice-edge:org.sluice.edge.store.kafka.LogRecordsFuzzTest:org.sluice.**,com.fasterxml.jackson.core.**"
)

selected=("$@")
ran=0
failed=()
for t in "${targets[@]}"; do
  IFS=: read -r module class includes <<<"$t"
  simple=${class##*.}
  if [ ${#selected[@]} -gt 0 ] && [[ ! " ${selected[*]} " =~ " $simple " ]]; then
    continue
  fi
  # A target whose class moved would run nothing and pass: name it as missing instead.
  if [ ! -f "$module/src/test/java/${class//.//}.java" ]; then
    echo "fuzz: no test class $class in $module" >&2
    failed+=("$simple(missing)")
    continue
  fi
  ran=$((ran + 1))
  echo "fuzz: $simple for ${seconds}s ($module)"
  # jazzer.internal.arg.N are passed to libFuzzer after the annotation's maxDuration, so
  # this -max_total_time wins over the @FuzzTest(maxDuration) written in the test.
  if ! JAZZER_FUZZ=1 mvn -B -ntp -q -pl "$module" -am test-compile surefire:test \
      -Dtest="$class" -Dsurefire.failIfNoSpecifiedTests=false \
      -Djazzer.hooks=true \
      -Djazzer.instrumentation_includes="${includes//,/:}" \
      -Djazzer.custom_hook_includes="${includes//,/:}" \
      -Djazzer.internal.arg.0=fuzz \
      -Djazzer.internal.arg.1=-max_total_time="$seconds"; then
    failed+=("$simple")
  fi
done

[ "$ran" -gt 0 ] || { echo "fuzz: no target named ${selected[*]}" >&2; exit 2; }
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FINDINGS in ${failed[*]} (see the surefire reports and the crash-* inputs)" >&2
  exit 1
fi
echo "fuzz: $ran targets, ${seconds}s each, no findings"
