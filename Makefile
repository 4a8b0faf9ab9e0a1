# Thin wrapper over ./mvnw; `make help` lists the targets.
MVN ?= ./mvnw -B -ntp
ENGINE ?= docker
IMAGE ?= ghcr.io/tenure-dev/tenure-operator:$(shell sed -n 's/^version=//p' src/main/olm/release.properties)
NATIVE_IN_CONTAINER ?= false
.DEFAULT_GOAL := help

.PHONY: help run test lint test-fast test-chaos test-tools fmt bench chaos bundle community-bundle manifests verify-generated native image image-native

help: ## List the targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-18s %s\n", $$1, $$2}'

KUBE ?= emulated
run: ## Run the operator on an embedded emulated cluster (KUBE=current: on your current kube context)
	@KUBE=$(KUBE) bin/run

# Error Prone (profile errorprone, -Werror) compiles everything, from clean: the compiler plugin does not recompile
# sources it compiled earlier without Error Prone, so an incremental build could let a warning through.
# Then the tests in two test JVMs side by side, on that one compile: the JUnit Jupiter classes in their two lanes in one,
# in the other the classes TEST_SECOND_JVM_CLASSES lists (the jqwik property classes, and classes that mostly wait on
# real time), its output in TEST_SECOND_JVM_LOG (the tail printed when it fails). In one JVM the properties ran alone
# after both lanes (the JUnit Platform runs one engine after another), and the second JVM was idle after them. Then a `verify` that runs no test (-Dtest=NoTestHere) packages, builds the production application and checks
# the RBAC grants against what both JVMs recorded (process-test-classes cleared the recordings once, first; the verify
# keeps them, -Dmaven.clean.skip). make test fails when any of these fails, the compile stopping the rest.
# The formatting gate (spotless:check, ~17 s, one core) runs beside the build, mostly while Error Prone's javac holds
# the other core, instead of after the tests; make test fails if either fails. Its index is off there (pom.xml).
TEST_SECOND_JVM_CLASSES = src/test/second-test-jvm.txt
TEST_SECOND_JVM_LOG ?= target/test-second-jvm.log
test: test-tools ## Build with Error Prone (any warning fails), run every test, check formatting and that generated artifacts are committed
	@fmt_log=$$(mktemp); props_log=$(TEST_SECOND_JVM_LOG); \
	$(MVN) -q spotless:check -Dspotless.up-to-date-checking=false >"$$fmt_log" 2>&1 & fmt=$$!; \
	$(MVN) -Perrorprone clean process-test-classes -Dspotless.check.skip=true; build=$$?; \
	if [ $$build -eq 0 ]; then \
	  echo "make test: the second test JVM ($(TEST_SECOND_JVM_CLASSES): the jqwik properties and classes that wait) runs beside the first; its output: $$props_log"; \
	  $(MVN) surefire:test -Dtest="$$(grep -v '^#' $(TEST_SECOND_JVM_CLASSES) | paste -sd, -)" -Dtest-class-times.file=target/test-class-times-second-jvm.tsv >"$$props_log" 2>&1 & props=$$!; \
	  $(MVN) surefire:test -Dsurefire.excludesFile=$(TEST_SECOND_JVM_CLASSES); build=$$?; \
	  wait $$props; props_rc=$$?; \
	  if [ $$props_rc -ne 0 ]; then tail -n 400 "$$props_log"; echo "make test: the second test JVM ($(TEST_SECOND_JVM_CLASSES)) failed; the whole output: $$props_log"; \
	  else grep -E "Tests run:" "$$props_log" | tail -n 1; echo "make test: the second test JVM passed"; fi; \
	  if [ $$build -eq 0 ] && [ $$props_rc -eq 0 ]; then \
	    $(MVN) -Perrorprone,!partial-test-run verify -Dtest=NoTestHere -Dmaven.clean.skip=true -Dsurefire.failIfNoSpecifiedTests=false -Dspotless.check.skip=true; build=$$?; \
	  else build=1; fi; \
	fi; \
	wait $$fmt; fmt_rc=$$?; \
	if [ $$fmt_rc -ne 0 ]; then cat "$$fmt_log"; echo "make test: the formatting gate (spotless:check) failed; make fmt formats"; \
	else echo "make test: the formatting gate (spotless:check) passed"; fi; \
	rm -f "$$fmt_log"; [ $$build -eq 0 ] && [ $$fmt_rc -eq 0 ]
	@$(MAKE) --no-print-directory verify-generated

# The excludes file keeps the @QuarkusTest classes out of discovery, where Quarkus would build each profile's app.
# It skips Quarkus's code generation (no codegen provider is on the classpath: it writes nothing, ~15 s of a JVM's CPU)
# and runs the property tests at FAST_TRIES generated cases each (make test: pom.xml's jqwik.tries.default, 1,000).
FAST_TRIES ?= 1000
test-fast: ## The fast tier (~2,160 unit and table tests; 41 s, 35 s of CPU, on a quiet fresh clone, 30 Nov): no emulated cluster, Quarkus app, kubectl or chaos
	$(MVN) test -DexcludedGroups=e2e,chaos -Dsurefire.excludesFile=src/test/fast-tier-excludes.txt -Dquarkus.generate-code.skip=true -Djqwik.tries.default=$(FAST_TRIES)

lint: ## Error Prone alone on main, test and build code (what make test compiles with; any warning fails)
	$(MVN) -Perrorprone clean test-compile

fmt: ## Format the Java sources (palantir-java-format via Spotless; make test fails on unformatted code)
	$(MVN) -q spotless:apply

test-chaos: ## Chaos tier alone (tag chaos) at the runs per suite of make test; make chaos is the long run
	$(MVN) test -Dgroups=chaos

test-tools: ## Install what the tests need beyond Maven (Prometheus, promtool) before they run
	@bin/test-tools >/dev/null

# A plain child JVM on the test classpath (not exec:java, whose thread handling hung on the emulator's
# non-daemon threads); the packaged jar is built for the footprint row. BENCH_OPTS=-Dtenure.bench.quick=true
# is the smoke run.
bench: ## Side-by-side benchmark; prints a table, writes bench/results.json (BENCH_OPTS=-Dtenure.bench.quick=true)
	$(MVN) -q package -DskipTests -Dquarkus.package.jar.appcds.enabled=true
	$(MVN) -q dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/test-classpath.txt
	java -Djava.util.logging.manager=org.jboss.logmanager.LogManager $(BENCH_OPTS) -cp "target/test-classes:target/classes:$$(cat target/test-classpath.txt)" dev.tenure.bench.Bench

CHAOS_RUNS ?= 20
# The in-memory real-time election suite runs 10 trials per run: 100 runs are the 1,000 trials that catch a
# once-in-a-few-hundred overlap every time.
REALTIME_CHAOS_RUNS ?= 100
# OperatorChaosIT: trials of two real operator instances (reconcilers, annotation door, coordination), ~10 s each;
# make test runs 3. Its staged trials (failover mid-hook, mid-wave, mid-detach; ~30 s each) are a third as many.
OPERATOR_CHAOS_TRIALS ?= 200
# Its kill trials (issue 40: kill -9 of the leader mid-drain, mid-handover or mid-status-write, the kubelet's report
# delivered or withheld) run 4 side by side (-Dtenure.chaos.operator.kill.parallel); make test runs 20 (SuiteCounts).
# Measured: 200 in 305 s on the shared two cores at load 14-26 (5.3 s median each, 1.3 s of CPU); 1,000 take ~25 min.
OPERATOR_KILL_TRIALS ?= 1000
# SurgeChaosIT (issue 51): kill -9 of the leader, a foreign scale or an HPA at a random point of a surge evacuation,
# two real operator instances on a living emulated cluster, 4 side by side (-Dtenure.chaos.surge.parallel); make test
# runs 4 (SuiteCounts).
SURGE_CHAOS_TRIALS ?= 200
# DrainModelPropertyTest: generated drain plans (make test runs 1,000, pom.xml, jqwik.tries.default).
DRAIN_MODEL_TRIES ?= 200000
# DrainModelOnClusterIT: the same plans on the emulated cluster, one cluster each (make test runs 5, SuiteCounts).
DRAIN_MODEL_CLUSTER_TRIES ?= 500
# MaintenanceWindowPropertyTest: generated windows, zones and instants (make test runs 1,000, SuiteCounts).
WINDOW_TRIES ?= 10000
# PlacementForecastOnClusterIT: the forecast against the living emulated cluster, one cluster per generated case
# (issue 49; make test runs 10, SuiteCounts).
PLACEMENT_CLUSTER_TRIES ?= 1000
# PlacementForecastPropertyTest: the forecast's invariants on generated clusters (make test: pom.xml's 1,000), its own
# count here so that DRAIN_MODEL_TRIES (jqwik.tries.default) does not apply to it.
PLACEMENT_FORECAST_TRIES ?= 20000
# RolloutPlannerPropertyTest: generated rollouts stepped against a simulated pool (issue 52; make test: pom.xml's
# 1,000), its own count here so that DRAIN_MODEL_TRIES (jqwik.tries.default) does not apply to it. Measured: 10,000
# in 278 s on the shared two cores (load ~10).
ROLLOUT_PLANNER_TRIES ?= 10000
# The suites wait on real time (kill trials, leases, pod terminations) and the properties compute on one thread:
# make chaos runs the two in two test JVMs side by side (compiled once first), so the properties' ~45 minutes of one
# core overlap the suites' waits instead of following them, then checks the RBAC grants against what both recorded
# (and the formatting gate) in one verify: process-test-classes clears the recordings of an earlier run once, first, and
# the verify keeps them (-Dmaven.clean.skip). TestTiersTest checks both halves keep their counts.
CHAOS_SUITES = *Chaos*
CHAOS_PROPERTIES_LOG ?= target/chaos-properties.log
CHAOS_PROPERTIES = DrainModelPropertyTest,DrainModelOnClusterIT,MaintenanceWindowPropertyTest,PlacementForecastPropertyTest,PlacementForecastOnClusterIT,RolloutPlannerPropertyTest
chaos: ## Long chaos run, the stress counts (1 h 1 min on a fresh clone of 2 cores, alone, 30 Nov; 1 h 21 min on a slower machine beside other builds; seeded, replayable; CHAOS_RUNS runs per suite, REALTIME_CHAOS_RUNS x 10 real-time election trials, OPERATOR_CHAOS_TRIALS operator trials, OPERATOR_KILL_TRIALS kill trials, SURGE_CHAOS_TRIALS surge trials, DRAIN_MODEL_TRIES drain model cases, DRAIN_MODEL_CLUSTER_TRIES of them on the cluster, WINDOW_TRIES windows, PLACEMENT_CLUSTER_TRIES forecasts on the living cluster, PLACEMENT_FORECAST_TRIES forecast invariants, ROLLOUT_PLANNER_TRIES rollouts)
	$(MVN) process-test-classes
	@props_log=$(CHAOS_PROPERTIES_LOG); \
	echo "make chaos: the properties run beside the suites; their output: $$props_log"; \
	$(MVN) surefire:test -Dtest='$(CHAOS_PROPERTIES)' -Dtest-class-times.file=target/test-class-times-properties.tsv -Djqwik.tries.default=$(DRAIN_MODEL_TRIES) -Dtenure.drain-model.cluster.tries=$(DRAIN_MODEL_CLUSTER_TRIES) -Dtenure.windows.tries=$(WINDOW_TRIES) -Dtenure.placement.cluster.tries=$(PLACEMENT_CLUSTER_TRIES) -Dtenure.placement.forecast.tries=$(PLACEMENT_FORECAST_TRIES) -Dtenure.rollout.planner.tries=$(ROLLOUT_PLANNER_TRIES) -Dsurefire.failIfNoSpecifiedTests=false -Drbac-check.partial-run=true >"$$props_log" 2>&1 & props=$$!; \
	$(MVN) surefire:test -Dtest='$(CHAOS_SUITES)' -Dtenure.chaos.runs=$(CHAOS_RUNS) -Dtenure.chaos.realtime.runs=$(REALTIME_CHAOS_RUNS) -Dtenure.chaos.operator.trials=$(OPERATOR_CHAOS_TRIALS) -Dtenure.chaos.operator.kill.trials=$(OPERATOR_KILL_TRIALS) -Dtenure.chaos.surge.trials=$(SURGE_CHAOS_TRIALS) -Dsurefire.failIfNoSpecifiedTests=false -Drbac-check.partial-run=true; suites=$$?; \
	wait $$props; props_rc=$$?; \
	if [ $$props_rc -ne 0 ]; then tail -n 400 "$$props_log"; echo "make chaos: the properties ($(CHAOS_PROPERTIES)) failed; the whole output: $$props_log"; \
	else grep -E "Tests run:" "$$props_log" | tail -n 8; echo "make chaos: the properties passed"; fi; \
	[ $$suites -eq 0 ] && [ $$props_rc -eq 0 ]
	$(MVN) verify -Dtest=NoTestHere -Dmaven.clean.skip=true -Dsurefire.failIfNoSpecifiedTests=false -Drbac-check.partial-run=true

bundle: ## OLM bundle, catalog, plain manifests (VERSION=x.y.z OPERATOR_DIGEST=sha256:… [BUNDLE_DIGEST=sha256:…] cuts a release)
	@OPERATOR_DIGEST=$(OPERATOR_DIGEST) BUNDLE_DIGEST=$(BUNDLE_DIGEST) bin/release $(VERSION)
	$(MVN) package -DskipTests
	@bin/sync-generated

community-bundle: ## The committed bundle in the community-operators layout (VERSION=x.y.z, the recorded release) into target/community-operators
	@bin/community-bundle $(VERSION)

manifests: ## Plain manifests (Namespace, CRDs, RBAC, Deployment, Service; monitoring/) into deploy/
	$(MVN) package -DskipTests
	@bin/sync-generated

verify-generated: ## Fail when committed olm-bundle/, catalog/ or deploy/ differ from the build's output
	@bin/sync-generated --check

native: ## Native executable target/*-runner (needs GraalVM/Mandrel, or NATIVE_IN_CONTAINER=true and a container engine)
	$(MVN) package -Pnative -DskipTests -Dquarkus.native.container-build=$(NATIVE_IN_CONTAINER)

# The AOT cache must come from the image's own JDK build: the training run uses java inside the image's base.
JVM_BASE_IMAGE ?= eclipse-temurin:25-jre-ubi10-minimal
image: ## JVM container image $(IMAGE) from src/main/docker/Dockerfile.jvm (needs docker or podman)
	$(MVN) package -DskipTests
	$(MVN) -q dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/test-classpath.txt
	java -cp "target/test-classes:target/classes:$$(cat target/test-classpath.txt)" dev.tenure.bench.AotTraining $(ENGINE) $(JVM_BASE_IMAGE)
	$(ENGINE) build -f src/main/docker/Dockerfile.jvm -t $(IMAGE) .

image-native: native ## Native container image $(IMAGE) from src/main/docker/Dockerfile.native
	$(ENGINE) build -f src/main/docker/Dockerfile.native -t $(IMAGE) .
