package dev.tenure.maintenance.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.deser.BeanDeserializerModifier;
import com.fasterxml.jackson.databind.deser.std.DelegatingDeserializer;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Reads a NodeMaintenance whose fields have the wrong JSON type ({@code "join": "yes"}, {@code "drain": "all"})
 * instead of failing on it: each such field is read as absent and named on the object ({@link
 * NodeMaintenance#malformedFields()}), so the validator refuses it with that message.
 *
 * <p>kube-apiserver refuses such an object before it is stored (the CRD's structural schema), but an API server that
 * does not enforce it (a CRD applied without its schema, objects stored before a field changed type) stores it, and
 * the operator's informer then reads it with every other NodeMaintenance: one failed read stops the informer, and
 * with it the controller, for all of them. Status fields of the wrong type are read as absent without a note (the
 * operator writes its status again).
 *
 * <p>How: the object is read as a tree and bound; a binding that fails names the field (Jackson's path), which is
 * taken out of the tree and noted, and the tree is bound again — at most {@link #MAX_FIELDS} times; past that, or
 * when a failure names no field, the object is read with its metadata only and its spec named as not read. A
 * well-formed object is bound once. Only NodeMaintenance is read this way; everything else the client reads fails as before.
 */
public final class MalformedFields extends SimpleModule {
    private static final long serialVersionUID = 1L;

    /** More wrong fields than this and the spec is not worth reading: the object is read with its metadata only. */
    static final int MAX_FIELDS = 32;

    public MalformedFields() {
        super("tenure-malformed-fields");
        setDeserializerModifier(new BeanDeserializerModifier() {
            @Override
            public JsonDeserializer<?> modifyDeserializer(
                    DeserializationConfig config, BeanDescription description, JsonDeserializer<?> deserializer) {
                return description.getBeanClass() == NodeMaintenance.class ? new Lenient(deserializer) : deserializer;
            }
        });
    }

    static final class Lenient extends DelegatingDeserializer {
        private static final long serialVersionUID = 1L;

        Lenient(JsonDeserializer<?> delegate) {
            super(delegate);
        }

        @Override
        protected JsonDeserializer<?> newDelegatingInstance(JsonDeserializer<?> delegate) {
            return new Lenient(delegate);
        }

        @Override
        public Object deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            JsonNode tree = ctxt.readTree(p);
            if (!(tree instanceof ObjectNode object)) {
                return bind(tree, p, ctxt);
            }
            List<String> notes = new ArrayList<>();
            for (int attempt = 0; ; attempt++) {
                try {
                    Object read = bind(tree, p, ctxt);
                    if (read instanceof NodeMaintenance nm) {
                        notes.forEach(nm::malformed);
                    }
                    return read;
                } catch (JsonMappingException e) {
                    List<JsonMappingException.Reference> path = e.getPath();
                    JsonNode removed = attempt >= MAX_FIELDS || path.isEmpty() ? null : takeOut(tree, path);
                    if (removed == null) {
                        return withoutSpec(object, notes, attempt, p, ctxt, e);
                    }
                    String field = field(path);
                    if (!field.startsWith("status")) {
                        notes.add(field + ": must be " + expected(e) + ", was " + shown(removed));
                    }
                }
            }
        }

        /**
         * Past {@link #MAX_FIELDS} wrong fields, or one Jackson cannot point at, the object is still read — with its
         * metadata only, the spec named as unread — so that the validator refuses it and the informer reads on.
         */
        private Object withoutSpec(
                ObjectNode tree,
                List<String> notes,
                int attempt,
                JsonParser p,
                DeserializationContext ctxt,
                JsonMappingException e)
                throws IOException {
            ObjectNode bare = tree.deepCopy();
            bare.remove("spec");
            bare.remove("status");
            Object read = bind(bare, p, ctxt);
            if (read instanceof NodeMaintenance nm) {
                String why = attempt >= MAX_FIELDS
                        ? "more than " + MAX_FIELDS + " fields of the wrong type"
                        : "unreadable at " + (e.getPath().isEmpty() ? "the top" : field(e.getPath()));
                nm.malformed("spec: not read, " + why + (notes.isEmpty() ? "" : "; first: " + notes.get(0)));
            }
            return read;
        }

        private Object bind(JsonNode tree, JsonParser p, DeserializationContext ctxt) throws IOException {
            try (JsonParser tp = tree.traverse(p.getCodec())) {
                tp.nextToken();
                return _delegatee.deserialize(tp, ctxt);
            }
        }
    }

    /** Removes the value at {@code path} from {@code tree} (a list element becomes null); null when not there. */
    static JsonNode takeOut(JsonNode tree, List<JsonMappingException.Reference> path) {
        JsonNode parent = tree;
        for (int i = 0; i < path.size() - 1 && parent != null; i++) {
            parent = step(parent, path.get(i));
        }
        JsonMappingException.Reference last = path.get(path.size() - 1);
        if (parent instanceof ObjectNode object && last.getFieldName() != null) {
            return object.remove(last.getFieldName());
        }
        if (parent instanceof ArrayNode array && last.getIndex() >= 0 && last.getIndex() < array.size()) {
            return array.set(last.getIndex(), NullNode.getInstance());
        }
        return null;
    }

    private static JsonNode step(JsonNode node, JsonMappingException.Reference ref) {
        return ref.getFieldName() != null ? node.get(ref.getFieldName()) : node.get(ref.getIndex());
    }

    /** {@code spec.drain.rules[0].behavior}. */
    static String field(List<JsonMappingException.Reference> path) {
        StringBuilder out = new StringBuilder();
        for (JsonMappingException.Reference ref : path) {
            if (ref.getFieldName() != null) {
                out.append(out.length() == 0 ? "" : ".").append(ref.getFieldName());
            } else {
                out.append('[').append(ref.getIndex()).append(']');
            }
        }
        return out.toString();
    }

    private static String expected(JsonMappingException e) {
        Class<?> target = e instanceof MismatchedInputException m ? m.getTargetType() : null;
        if (target == null) {
            return "of another type";
        }
        if (target == Boolean.class || target == boolean.class) {
            return "a boolean";
        }
        if (target == Integer.class || target == Long.class || target == int.class || target == long.class) {
            return "an integer";
        }
        if (Number.class.isAssignableFrom(target)) {
            return "a number";
        }
        if (target == String.class) {
            return "a string";
        }
        if (target.isEnum()) {
            return "one of " + Arrays.toString(target.getEnumConstants());
        }
        if (Collection.class.isAssignableFrom(target) || target.isArray()) {
            return "a list";
        }
        if (Map.class.isAssignableFrom(target)) {
            return "a map";
        }
        return "an object";
    }

    /** The value as JSON, cut short: a message names it, it does not carry it. */
    private static String shown(JsonNode value) {
        String json = value.toString();
        return json.length() <= 64 ? json : json.substring(0, 61) + "...";
    }
}
