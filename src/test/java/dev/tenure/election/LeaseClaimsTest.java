package dev.tenure.election;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class LeaseClaimsTest {
    static final LeaseKey KEY = LeaseKey.of("medik8s-leases", "node-worker-1");
    static final LeaseOwner NODE = LeaseOwner.node("worker-1", "uid-1");
    final ManualScheduler time = new ManualScheduler(Instant.parse("2026-01-01T00:00:00Z"));
    final InMemoryLeaseStore store = new InMemoryLeaseStore();
    final LeaseClaims claims = new LeaseClaims(store, time.clock());

    @Test
    void createsWithOwnerThenRenews() {
        assertThat(claims.claim(KEY, "tenure", Duration.ofSeconds(3600), Optional.of(NODE)))
                .isInstanceOf(ClaimResult.Created.class);
        assertThat(store.peek(KEY).orElseThrow().owners()).containsExactly(NODE);
        time.advance(Duration.ofSeconds(30));
        ClaimResult r = claims.claim(KEY, "tenure", Duration.ofSeconds(3600), Optional.of(NODE));
        assertThat(r)
                .isInstanceOfSatisfying(
                        ClaimResult.Renewed.class,
                        x -> assertThat(x.lease().renewTime()).isEqualTo(time.now()));
    }

    @Test
    void validForeignHoldingIsReportedAndExpiredOneTakenOver() {
        store.put(KEY, LeaseRecord.heldBy("medik8s-nmo", Duration.ofSeconds(60), time.now()));
        assertThat(claims.claim(KEY, "tenure", Duration.ofSeconds(600), Optional.empty()))
                .isEqualTo(new LeaseHeldElsewhere(
                        KEY,
                        "medik8s-nmo",
                        time.now().plusSeconds(60),
                        store.peek(KEY).orElseThrow()));
        time.advance(Duration.ofSeconds(60).plusMillis(1)); // expired strictly after renewTime + duration (upstream)
        ClaimResult r = claims.claim(KEY, "tenure", Duration.ofSeconds(600), Optional.empty());
        assertThat(r).isInstanceOfSatisfying(ClaimResult.TookOver.class, t -> {
            assertThat(t.lease().leaseTransitions()).isEqualTo(1);
            assertThat(t.previous()).isInstanceOf(AuthorityStatus.Expired.class);
        });
    }

    @Test
    void conflictIsRedecidedOnce() {
        store.put(KEY, LeaseRecord.heldBy("tenure", Duration.ofSeconds(60), time.now()));
        store.failNext(InMemoryLeaseStore.Op.UPDATE, new LeaseConflict(KEY, false, null));
        assertThat(claims.claim(KEY, "tenure", Duration.ofSeconds(60), Optional.empty()))
                .isInstanceOf(ClaimResult.Renewed.class);
    }

    @Test
    void releaseOnlyOurOwn() {
        store.put(KEY, LeaseRecord.heldBy("someone", Duration.ofSeconds(60), time.now()));
        assertThat(claims.release(KEY, "tenure")).isFalse();
        assertThat(store.peek(KEY).orElseThrow().holderIdentity()).isEqualTo("someone");
        assertThat(claims.release(LeaseKey.of("x", "absent"), "tenure")).isFalse();
    }

    @Test
    void anOwnLeaseTheRenewPolicyFindsFreshIsKeptWithoutAWrite() {
        LeaseClaims.Rule rule = (current, now) ->
                LeaseRules.claim("tenure", current, now, Duration.ofSeconds(60), LeaseClaims.DEFAULT_FUTURE_TOLERANCE);
        claims.claim(KEY, rule, Optional.of(NODE), LeaseClaims.RenewPolicy.ALWAYS);
        int updates = store.calls(InMemoryLeaseStore.Op.UPDATE);

        ClaimResult kept = claims.claim(KEY, rule, Optional.of(NODE), (current, now) -> false);
        assertThat(kept).isInstanceOf(ClaimResult.Kept.class);
        assertThat(store.calls(InMemoryLeaseStore.Op.UPDATE)).isEqualTo(updates);

        // An owner still to be set is a reason to write even when the renew policy says fresh.
        LeaseOwner newer = LeaseOwner.node("worker-1", "uid-2");
        ClaimResult reowned = claims.claim(KEY, rule, Optional.of(newer), (current, now) -> false);
        assertThat(reowned).isInstanceOf(ClaimResult.Renewed.class);
        assertThat(store.peek(KEY).orElseThrow().owners()).containsExactly(newer);
    }

    @Test
    void aProtocolsWriteAtAStaleResourceVersionAnswersEmptyAndWritesNothing() {
        LeaseRecord first = claims.claim(KEY, "tenure", Duration.ofSeconds(60), Optional.empty())
                .held()
                .orElseThrow();
        claims.claim(KEY, "tenure", Duration.ofSeconds(60), Optional.empty()); // moves the resourceVersion on

        assertThat(claims.write(KEY, first.withHolderIdentity("tenure-annotation"), false, Optional.of(NODE)))
                .isEmpty();
        assertThat(store.peek(KEY).orElseThrow().holderIdentity()).isEqualTo("tenure");

        LeaseRecord current = store.peek(KEY).orElseThrow();
        assertThat(claims.write(KEY, current.withHolderIdentity("tenure-annotation"), false, Optional.of(NODE)))
                .hasValueSatisfying(w -> assertThat(w.owners()).containsExactly(NODE));
    }
}
