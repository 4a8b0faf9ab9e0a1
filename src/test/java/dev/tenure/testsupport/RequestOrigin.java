package dev.tenure.testsupport;

/**
 * Who sent a request to the emulated cluster, told apart by User-Agent. The harness (seeding, checking results),
 * kubectl and workloads are not the operator; anything else is counted as the operator, so a client nobody
 * labelled makes the RBAC check demand more, never less.
 */
public enum RequestOrigin {
    /** {@link EmulatedCluster#client()}: tests seeding objects and reading results. */
    HARNESS,
    /** kubectl pointed at the emulated cluster (a peer in the benchmark and compatibility tests). */
    KUBECTL,
    /**
     * {@link EmulatedCluster#workloadClient()}: applications running in the cluster with their own RBAC, e.g. the
     * replicas of a workload that take part in coordinated leader election (election-core Candidates).
     */
    WORKLOAD,
    /**
     * A previous release's operator the upgrade suite runs beside this one ({@link PreviousRelease}): its requests are
     * what that release needed, not what this one does.
     */
    PREVIOUS_RELEASE,
    /** Production code: the Quarkus client of a {@code @QuarkusTest}, {@link EmulatedCluster#operatorClient()}, any other. */
    OPERATOR;

    public static RequestOrigin of(ApiRequest request) {
        String agent = request.userAgent();
        if (agent.equals(EmulatedCluster.HARNESS_USER_AGENT)) {
            return HARNESS;
        }
        if (agent.startsWith("kubectl/")) {
            return KUBECTL;
        }
        if (agent.equals(EmulatedCluster.WORKLOAD_USER_AGENT)) {
            return WORKLOAD;
        }
        if (agent.startsWith(PreviousRelease.USER_AGENT_PREFIX)) {
            return PREVIOUS_RELEASE;
        }
        return OPERATOR;
    }
}
