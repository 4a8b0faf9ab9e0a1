package dev.tenure.coordination;

import dev.tenure.election.CandidateRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/** Builds {@link CandidateRecord}s for tables: {@code cand("c1").versions("1.19.0", "1.19.0").renewed(NOW)}. */
final class CandidateFixture {

    static final Instant NOW = Instant.parse("2026-01-01T12:00:00Z");

    private String namespace = "default";
    private final String name;
    private String leaseName = "component-A";
    private String binaryVersion;
    private String emulationVersion;
    private String strategy = OldestEmulationVersion.NAME;
    private Instant renewTime;
    private Instant pingTime;
    private Instant creation;
    private final Map<String, String> labels = new HashMap<>();

    private CandidateFixture(String name) {
        this.name = name;
    }

    static CandidateFixture cand(String name) {
        return new CandidateFixture(name);
    }

    static Instant ago(Duration d) {
        return NOW.minus(d);
    }

    CandidateFixture namespace(String ns) {
        this.namespace = ns;
        return this;
    }

    CandidateFixture lease(String lease) {
        this.leaseName = lease;
        return this;
    }

    /** emulation version, binary version (upstream's argument order in its tables). */
    CandidateFixture versions(String emulation, String binary) {
        this.emulationVersion = emulation;
        this.binaryVersion = binary;
        return this;
    }

    CandidateFixture binary(String binary) {
        this.binaryVersion = binary;
        return this;
    }

    CandidateFixture strategy(String s) {
        this.strategy = s;
        return this;
    }

    CandidateFixture renewed(Instant t) {
        this.renewTime = t;
        return this;
    }

    CandidateFixture pinged(Instant t) {
        this.pingTime = t;
        return this;
    }

    CandidateFixture created(Instant t) {
        this.creation = t;
        return this;
    }

    CandidateFixture onNode(String node) {
        labels.put(CandidateRecord.NODE_LABEL, node);
        return this;
    }

    CandidateRecord build() {
        return new CandidateRecord(
                namespace,
                name,
                leaseName,
                binaryVersion,
                emulationVersion,
                strategy,
                renewTime,
                pingTime,
                creation,
                labels,
                "1");
    }

    @Override
    public String toString() {
        return name;
    }
}
