package dev.tenure.testsupport;

/**
 * The counts of the stress suites: {@code make test} runs their smoke counts (the defaults here), {@code make chaos}
 * their stress counts (the Makefile's variables, passed as these system properties). One place, so that
 * {@code TestTiersTest} can hold both ends: no default here above its smoke bound, and the chaos recipe passing each
 * property at no less than its stress count (issue 48: {@code make test} is the suite every change runs, the stress
 * counts belong to {@code make chaos}; docs/development.md, "Which suite lives where").
 *
 * <p>The generated drain plans ({@code DrainModelPropertyTest}) and every other jqwik property read
 * {@code jqwik.tries.default}, which pom.xml sets for the test JVM (1,000) and {@code make chaos} raises.
 */
public final class SuiteCounts {
    /** {@code OperatorChaosIT}'s kill -9 trials; {@code make chaos}: {@code OPERATOR_KILL_TRIALS} (1,000). */
    public static final String KILL_TRIALS_PROPERTY = "tenure.chaos.operator.kill.trials";

    /** Kill trials in {@code make test}: a smoke run (the point and the kubelet's report are drawn from each seed). */
    public static final int KILL_TRIALS = 20;

    /**
     * {@code SurgeChaosIT}'s trials (issue 51's chaos: kill -9 of the leader, a foreign scale or an HPA at a random
     * point of a surge); {@code make chaos}: {@code SURGE_CHAOS_TRIALS} (200).
     */
    public static final String SURGE_TRIALS_PROPERTY = "tenure.chaos.surge.trials";

    /**
     * Surge trials in {@code make test}: a smoke run, four side by side (one round: ~20 s of wall time). The point,
     * the fault and the workloads are drawn from each seed; {@code make chaos}'s 200 draw every pair many times.
     */
    public static final int SURGE_TRIALS = 4;

    /** {@code DrainModelOnClusterIT}'s generated plans, one emulated cluster each; {@code make chaos}: 500. */
    public static final String CLUSTER_PLANS_PROPERTY = "tenure.drain-model.cluster.tries";

    /** Cluster plans in {@code make test}: a handful, the bridge from the model to the cluster still crossed. */
    public static final int CLUSTER_PLANS = 5;

    /** {@code MaintenanceWindowPropertyTest}'s generated windows; {@code make chaos}: {@code WINDOW_TRIES} (10,000). */
    public static final String WINDOW_TRIES_PROPERTY = "tenure.windows.tries";

    /** Windows in {@code make test}: {@code make test-fast}'s count. */
    public static final int WINDOW_TRIES = 1000;

    /**
     * {@code PlacementForecastOnClusterIT}'s generated clusters, one emulated cluster each (issue 49); {@code make
     * chaos}: {@code PLACEMENT_CLUSTER_TRIES} (1,000).
     */
    public static final String PLACEMENT_CLUSTER_TRIES_PROPERTY = "tenure.placement.cluster.tries";

    /** Generated clusters in {@code make test}: a smoke run (the forecast against the living cluster). */
    public static final int PLACEMENT_CLUSTER_TRIES = 10;

    /**
     * {@code PlacementForecastPropertyTest}'s generated clusters; unset, it runs at {@code jqwik.tries.default} (the
     * pom's 1,000 in {@code make test}, {@code FAST_TRIES} in {@code make test-fast}); {@code make chaos}:
     * {@code PLACEMENT_FORECAST_TRIES}, so that the drain model's 200,000 do not apply to it.
     */
    public static final String PLACEMENT_FORECAST_TRIES_PROPERTY = "tenure.placement.forecast.tries";

    /**
     * {@code RolloutPlannerPropertyTest}'s generated rollouts (issue 52); unset, it runs at {@code jqwik.tries.default}
     * (the pom's 1,000 in {@code make test}, {@code FAST_TRIES} in {@code make test-fast}); {@code make chaos}:
     * {@code ROLLOUT_PLANNER_TRIES}, so that the drain model's 200,000 do not apply to it.
     */
    public static final String ROLLOUT_PLANNER_TRIES_PROPERTY = "tenure.rollout.planner.tries";

    /**
     * Runs of the real-time chaos suites of {@code dev.tenure.chaos} ({@code MaintenanceChaosTest},
     * {@code CoordinatedElectionChaosTest}, {@code LeaseElectionChaosTest}, {@code RealTimeElectionChaosTest}), each a
     * seed; {@code make chaos}: {@code CHAOS_RUNS} (20).
     */
    public static final String CHAOS_RUNS_PROPERTY = "tenure.chaos.runs";

    /**
     * Runs per real-time chaos suite in {@code make test}: one. At two each cost 36-125 s of wall time in a quiet
     * {@code make test} (issue 48 keeps a suite's runs there only up to ~20 s); one run still crosses every fault
     * and restart the suite injects, the runs after it draw other moments of the same.
     */
    public static final int CHAOS_RUNS = 1;

    /**
     * Runs of {@code ElectionChaosTest} in {@code make test}: six. It runs in memory on a virtual clock (six took
     * 0.4 s), so its count stays; it reads {@link #CHAOS_RUNS_PROPERTY} too.
     */
    public static final int VIRTUAL_TIME_CHAOS_RUNS = 6;

    /**
     * Runs of {@code RealTimeElectionChaosTest}'s in-memory suite (10 trials each); unset, {@link #CHAOS_RUNS_PROPERTY}
     * applies; {@code make chaos}: {@code REALTIME_CHAOS_RUNS} (100).
     */
    public static final String REALTIME_CHAOS_RUNS_PROPERTY = "tenure.chaos.realtime.runs";

    /**
     * {@code OperatorChaosIT}'s fault trials (its staged trials are a third as many, at least one); {@code make chaos}:
     * {@code OPERATOR_CHAOS_TRIALS} (200).
     */
    public static final String OPERATOR_TRIALS_PROPERTY = "tenure.chaos.operator.trials";

    /**
     * Fault trials in {@code make test}: one (and one staged). The class took 64 s of wall time with three; the fault
     * of a trial is drawn from its seed, and {@code make chaos}'s 200 draw every fault many times.
     */
    public static final int OPERATOR_TRIALS = 1;

    private SuiteCounts() {}

    /** The count a suite runs: its system property when set (make chaos, a replay), else its smoke default. */
    public static int of(String property, int smokeDefault) {
        return Integer.getInteger(property, smokeDefault);
    }
}
