# Thin wrapper over ./mvnw; `make help` lists the targets.
MVN ?= ./mvnw -B -ntp
.DEFAULT_GOAL := help

.PHONY: help run test bench chaos bundle manifests verify-generated native image

help: ## List the targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-18s %s\n", $$1, $$2}'

run: ## Run the operator (current kube context, else an embedded emulated cluster)
	@bin/run

test: ## Build, run every test, and check generated artifacts are committed
	$(MVN) verify
	@$(MAKE) --no-print-directory verify-generated

# A plain child JVM on the test classpath (not exec:java, whose thread handling hung on the emulator's
# non-daemon threads); the packaged jar is built for the footprint row. BENCH_OPTS=-Dtenure.bench.quick=true
# is the smoke run.
bench: ## Side-by-side benchmark; prints a table, writes bench/results.json (BENCH_OPTS=-Dtenure.bench.quick=true)
	$(MVN) -q package -DskipTests
	$(MVN) -q dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/test-classpath.txt
	java -Djava.util.logging.manager=org.jboss.logmanager.LogManager $(BENCH_OPTS) -cp "target/test-classes:target/classes:$$(cat target/test-classpath.txt)" dev.tenure.bench.Bench

CHAOS_RUNS ?= 20
chaos: ## Long chaos run against the emulated cluster (seeded, replayable; CHAOS_RUNS runs per suite)
	$(MVN) verify -Dtest='*Chaos*' -Dtenure.chaos.runs=$(CHAOS_RUNS) -Dsurefire.failIfNoSpecifiedTests=false

bundle: ## Generate the OLM bundle and copy it to olm-bundle/
	$(MVN) package -DskipTests
	@bin/sync-generated

manifests: ## Plain manifests (CRDs + RBAC + Deployment) for clusters without OLM, into deploy/
	$(MVN) package -DskipTests
	@bin/sync-generated

verify-generated: ## Fail when committed olm-bundle/ or deploy/ differ from the build's output
	@bin/sync-generated --check

native: ## Native executable (needs GraalVM/Mandrel; not available on CI machines)
	$(MVN) package -Pnative -DskipTests

image: ## Container image from src/main/docker/Dockerfile.jvm (needs a container engine)
	$(MVN) package -DskipTests
	docker build -f src/main/docker/Dockerfile.jvm -t tenure-operator:latest .
