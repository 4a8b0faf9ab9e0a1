package dev.tenure.coordination;

import java.util.Objects;

/** The Lease an election is about: the controller's work-queue key. */
public record LeaseKey(String namespace, String name) {

    public LeaseKey {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
    }

    @Override
    public String toString() {
        return namespace + "/" + name;
    }
}
