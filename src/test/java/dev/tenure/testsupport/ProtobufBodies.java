package dev.tenure.testsupport;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/**
 * Request bodies kubectl sends as Kubernetes protobuf ({@code application/vnd.kubernetes.protobuf}: client-go's typed
 * clients for built-in kinds, e.g. {@code kubectl create namespace}) read into JSON, for the kinds kubectl creates that
 * way and whose fields are few: Namespace, ConfigMap and Secret. Any other kind is refused (415) by the caller rather
 * than created half-read.
 */
final class ProtobufBodies {

    static final String CONTENT_TYPE = "application/vnd.kubernetes.protobuf";
    private static final byte[] MAGIC = {'k', '8', 's', 0};
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private ProtobufBodies() {}

    /** The JSON object, or empty when the kind is not one read here. Throws on a malformed body. */
    static Optional<String> toJson(byte[] body) {
        if (body.length < MAGIC.length || body[0] != 'k' || body[1] != '8' || body[2] != 's' || body[3] != 0) {
            throw new IllegalArgumentException("not a Kubernetes protobuf body (no k8s\\0 prefix)");
        }
        Reader unknown = new Reader(body, MAGIC.length, body.length);
        String apiVersion = "";
        String kind = "";
        byte[] raw = new byte[0];
        while (unknown.more()) {
            int tag = unknown.varint32();
            if (tag >>> 3 == 1 && (tag & 7) == 2) {
                Reader typeMeta = unknown.message();
                while (typeMeta.more()) {
                    int t = typeMeta.varint32();
                    if (t >>> 3 == 1) {
                        apiVersion = typeMeta.string();
                    } else if (t >>> 3 == 2) {
                        kind = typeMeta.string();
                    } else {
                        typeMeta.skip(t);
                    }
                }
            } else if (tag >>> 3 == 2 && (tag & 7) == 2) {
                raw = unknown.bytes();
            } else {
                unknown.skip(tag);
            }
        }
        if (!List.of("Namespace", "ConfigMap", "Secret").contains(kind) || !apiVersion.equals("v1")) {
            return Optional.empty();
        }
        ObjectNode o = F.objectNode().put("apiVersion", apiVersion).put("kind", kind);
        Reader object = new Reader(raw, 0, raw.length);
        while (object.more()) {
            int tag = object.varint32();
            int field = tag >>> 3;
            if (field == 1) {
                o.set("metadata", metadata(object.message()));
            } else if (kind.equals("Namespace") && field == 2) {
                Reader spec = object.message();
                ArrayNode finalizers = o.putObject("spec").putArray("finalizers");
                while (spec.more()) {
                    int t = spec.varint32();
                    if (t >>> 3 == 1) {
                        finalizers.add(spec.string());
                    } else {
                        spec.skip(t);
                    }
                }
            } else if (kind.equals("ConfigMap") && field == 2) {
                entry(o.with("data"), object.message(), false);
            } else if (kind.equals("ConfigMap") && field == 3) {
                entry(o.with("binaryData"), object.message(), true);
            } else if (kind.equals("Secret") && field == 2) {
                entry(o.with("data"), object.message(), true);
            } else if (kind.equals("Secret") && field == 3) {
                o.put("type", object.string());
            } else if (kind.equals("Secret") && field == 4) {
                entry(o.with("stringData"), object.message(), false);
            } else {
                object.skip(tag);
            }
        }
        return Optional.of(o.toString());
    }

    private static ObjectNode metadata(Reader m) {
        ObjectNode meta = F.objectNode();
        List<String> finalizers = new ArrayList<>();
        while (m.more()) {
            int tag = m.varint32();
            switch (tag >>> 3) {
                case 1 -> meta.put("name", m.string());
                case 2 -> meta.put("generateName", m.string());
                case 3 -> meta.put("namespace", m.string());
                case 11 -> entry(meta.with("labels"), m.message(), false);
                case 12 -> entry(meta.with("annotations"), m.message(), false);
                case 14 -> finalizers.add(m.string());
                default -> m.skip(tag);
            }
        }
        if (!finalizers.isEmpty()) {
            ArrayNode a = meta.putArray("finalizers");
            finalizers.forEach(a::add);
        }
        return meta;
    }

    /** One map entry (key = 1, value = 2) into {@code map}; {@code binary} values are base64 as in JSON. */
    private static void entry(ObjectNode map, Reader e, boolean binary) {
        String key = "";
        byte[] value = new byte[0];
        while (e.more()) {
            int tag = e.varint32();
            if (tag >>> 3 == 1) {
                key = e.string();
            } else if (tag >>> 3 == 2) {
                value = e.bytes();
            } else {
                e.skip(tag);
            }
        }
        map.put(key, binary ? Base64.getEncoder().encodeToString(value) : new String(value, StandardCharsets.UTF_8));
    }

    /** The protobuf wire format over a byte range. */
    private static final class Reader {
        private final byte[] b;
        private int at;
        private final int end;

        Reader(byte[] b, int from, int end) {
            this.b = b;
            this.at = from;
            this.end = end;
        }

        boolean more() {
            return at < end;
        }

        long varint() {
            long v = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                if (at >= end) {
                    throw new IllegalArgumentException("protobuf: truncated varint");
                }
                byte x = b[at++];
                v |= (long) (x & 0x7f) << shift;
                if ((x & 0x80) == 0) {
                    return v;
                }
            }
            throw new IllegalArgumentException("protobuf: varint too long");
        }

        int varint32() {
            return (int) varint();
        }

        byte[] bytes() {
            int n = varint32();
            if (n < 0 || at + n > end) {
                throw new IllegalArgumentException("protobuf: length " + n + " past the end");
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream(n);
            out.write(b, at, n);
            at += n;
            return out.toByteArray();
        }

        String string() {
            return new String(bytes(), StandardCharsets.UTF_8);
        }

        Reader message() {
            int n = varint32();
            if (n < 0 || at + n > end) {
                throw new IllegalArgumentException("protobuf: length " + n + " past the end");
            }
            Reader r = new Reader(b, at, at + n);
            at += n;
            return r;
        }

        void skip(int tag) {
            switch (tag & 7) {
                case 0 -> varint();
                case 1 -> at += 8;
                case 2 -> {
                    int n = varint32(); // read before adding: "at += varint32()" would add to the old position
                    at += n;
                }
                case 5 -> at += 4;
                default -> throw new IllegalArgumentException("protobuf: unsupported wire type " + (tag & 7));
            }
        }
    }
}
