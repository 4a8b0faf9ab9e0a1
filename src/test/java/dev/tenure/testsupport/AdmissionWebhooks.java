package dev.tenure.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Validating admission webhooks, called as kube-apiserver calls them
 * (staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/validating/dispatcher.go): for a write whose operation
 * and resource match a rule of a stored ValidatingWebhookConfiguration, an AdmissionReview (admission.k8s.io/v1) is
 * POSTed to the webhook's {@code clientConfig.url}, or to the URL a test gave its {@code clientConfig.service}
 * ({@link EmulatedCluster#serviceUrl}); it must answer within {@code timeoutSeconds} (default 10). A refusal becomes
 * the client's answer as upstream's webhookerrors.ToStatusErr shapes it; a webhook that cannot be called fails the
 * request (failurePolicy Fail, the default) or is skipped (Ignore).
 *
 * <p>Not emulated: mutating webhooks, namespaceSelector, objectSelector, matchConditions, matchPolicy Equivalent
 * (a rule matches the requested group/version/resource only), TLS and caBundle (plain HTTP is allowed).
 */
final class AdmissionWebhooks {
    static final String CONFIGURATIONS = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";

    /** What a write is, as admission sees it (admission.Attributes). */
    record Attributes(
            String operation,
            String group,
            String version,
            String resource,
            String subresource,
            String namespace,
            String name,
            String kind,
            String username,
            JsonNode object,
            Supplier<JsonNode> oldObject) {}

    /** A refusal: the Status kube-apiserver answers the client with, and its code. */
    record Refusal(int code, ObjectNode status) {}

    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final Map<String, String> serviceUrls = new ConcurrentHashMap<>();
    private final Supplier<List<JsonNode>> configurations;

    /** @param configurations the stored ValidatingWebhookConfigurations */
    AdmissionWebhooks(Supplier<List<JsonNode>> configurations) {
        this.configurations = configurations;
    }

    /** Where a webhook naming {@code clientConfig.service} namespace/name is reached (no Service network here). */
    void serviceUrl(String namespace, String name, String baseUrl) {
        serviceUrls.put(namespace + "/" + name, baseUrl.replaceAll("/+$", ""));
    }

    /** The first refusal of a matching webhook, in the configurations' order; empty when all allow (or are ignored). */
    Optional<Refusal> review(Attributes a) {
        for (JsonNode configuration : configurations.get()) {
            for (JsonNode hook : configuration.path("webhooks")) {
                if (!matches(hook, a)) {
                    continue;
                }
                Optional<Refusal> refusal = call(hook, a);
                if (refusal.isPresent()) {
                    return refusal;
                }
            }
        }
        return Optional.empty();
    }

    /** Whether any configuration is stored (the common case is none: writes need not look further). */
    boolean any() {
        return !configurations.get().isEmpty();
    }

    /** admission/plugin/webhook/predicates/rules/rules.go Matcher: operations, groups, versions, resources, scope. */
    static boolean matches(JsonNode hook, Attributes a) {
        for (JsonNode rule : hook.path("rules")) {
            if (listed(rule.path("operations"), a.operation())
                    && listed(rule.path("apiGroups"), a.group())
                    && listed(rule.path("apiVersions"), a.version())
                    && resourceListed(rule.path("resources"), a.resource(), a.subresource())
                    && inScope(rule.path("scope").asText("*"), a.namespace())) {
                return true;
            }
        }
        return false;
    }

    private static boolean listed(JsonNode values, String value) {
        for (JsonNode v : values) {
            if (v.asText().equals("*") || v.asText().equals(value)) {
                return true;
            }
        }
        return false;
    }

    private static boolean resourceListed(JsonNode values, String resource, String subresource) {
        for (JsonNode v : values) {
            String[] parts = v.asText().split("/", 2);
            String res = parts[0];
            String sub = parts.length > 1 ? parts[1] : "";
            if ((res.equals("*") || res.equals(resource)) && (sub.equals("*") || sub.equals(subresource))) {
                return true;
            }
        }
        return false;
    }

    private static boolean inScope(String scope, String namespace) {
        return switch (scope) {
            case "Cluster" -> namespace.isEmpty();
            case "Namespaced" -> !namespace.isEmpty();
            default -> true;
        };
    }

    private Optional<Refusal> call(JsonNode hook, Attributes a) {
        String name = hook.path("name").asText();
        boolean ignore = "Ignore".equals(hook.path("failurePolicy").asText("Fail"));
        int timeout = hook.path("timeoutSeconds").asInt(10);
        String uid = UUID.randomUUID().toString();
        String url;
        try {
            url = url(hook.path("clientConfig"));
        } catch (IllegalStateException e) {
            return failed(name, ignore, e.getMessage());
        }
        String review = review(uid, a).toString();
        JsonNode answer;
        try {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(URI.create(url))
                            .timeout(Duration.ofSeconds(timeout))
                            .header("Content-Type", "application/json")
                            .header("Accept", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(review))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() < 200 || response.statusCode() > 299) {
                return failed(
                        name,
                        ignore,
                        "failed to call webhook: the server responded with the status code " + response.statusCode()
                                + " but did not return more information");
            }
            answer = JSON.readTree(response.body());
        } catch (HttpTimeoutException e) {
            return failed(name, ignore, "failed to call webhook: Post \"" + url + "\": context deadline exceeded");
        } catch (ConnectException e) {
            return failed(
                    name,
                    ignore,
                    "failed to call webhook: Post \"" + url + "\": dial tcp "
                            + URI.create(url).getAuthority() + ": connect: connection refused");
        } catch (IOException e) {
            return failed(name, ignore, "failed to call webhook: Post \"" + url + "\": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return failed(name, ignore, "failed to call webhook: interrupted");
        }
        JsonNode response = answer.path("response");
        if (!uid.equals(response.path("uid").asText())) {
            return failed(
                    name,
                    ignore,
                    "received invalid webhook response: expected response.uid=\"" + uid + "\", got \""
                            + response.path("uid").asText() + "\"");
        }
        if (response.path("allowed").asBoolean(false)) {
            return Optional.empty();
        }
        return Optional.of(denied(name, response.path("status")));
    }

    /**
     * webhookerrors.ToStatusErr: the webhook's Status, its code at least 400, its message prefixed with who denied.
     */
    static Refusal denied(String webhook, JsonNode result) {
        ObjectNode status = JSON.createObjectNode().put("kind", "Status").put("apiVersion", "v1");
        status.putObject("metadata");
        int code = result.path("code").asInt(0);
        if (code < 400) {
            code = 400;
        }
        String deniedBy = "admission webhook \"" + webhook + "\" denied the request";
        String message = result.path("message").asText("");
        String reason = result.path("reason").asText("");
        status.put("status", "Failure");
        status.put(
                "message",
                !message.isEmpty()
                        ? deniedBy + ": " + message
                        : !reason.isEmpty() ? deniedBy + ": " + reason : deniedBy + " without explanation");
        if (!reason.isEmpty()) {
            status.put("reason", reason);
        }
        if (result.has("details")) {
            status.set("details", result.get("details"));
        }
        status.put("code", code);
        return new Refusal(code, status);
    }

    /** failurePolicy: Ignore lets the request through; Fail answers 500 (apierrors.NewInternalError(ErrCallingWebhook)). */
    private static Optional<Refusal> failed(String webhook, boolean ignore, String reason) {
        if (ignore) {
            return Optional.empty();
        }
        String error = "failed calling webhook \"" + webhook + "\": " + reason;
        ObjectNode status = JSON.createObjectNode().put("kind", "Status").put("apiVersion", "v1");
        status.putObject("metadata");
        status.put("status", "Failure")
                .put("message", "Internal error occurred: " + error)
                .put("reason", "InternalError");
        status.putObject("details").putArray("causes").addObject().put("message", error);
        status.put("code", 500);
        return Optional.of(new Refusal(500, status));
    }

    private String url(JsonNode clientConfig) {
        if (clientConfig.hasNonNull("url")) {
            return clientConfig.get("url").asText();
        }
        JsonNode service = clientConfig.path("service");
        String key =
                service.path("namespace").asText() + "/" + service.path("name").asText();
        String base = serviceUrls.get(key);
        if (base == null) {
            throw new IllegalStateException("failed to call webhook: service \"" + key
                    + "\" not found (the emulated cluster reaches a webhook Service only where a test named its URL)");
        }
        return base + service.path("path").asText("/");
    }

    private static ObjectNode review(String uid, Attributes a) {
        ObjectNode review =
                JSON.createObjectNode().put("apiVersion", "admission.k8s.io/v1").put("kind", "AdmissionReview");
        ObjectNode request = review.putObject("request").put("uid", uid);
        ObjectNode kind = request.putObject("kind")
                .put("group", a.group())
                .put("version", a.version())
                .put("kind", a.kind());
        ObjectNode resource = request.putObject("resource")
                .put("group", a.group())
                .put("version", a.version())
                .put("resource", a.resource());
        request.set("requestKind", kind.deepCopy());
        request.set("requestResource", resource.deepCopy());
        if (!a.subresource().isEmpty()) {
            request.put("subResource", a.subresource());
            request.put("requestSubResource", a.subresource());
        }
        request.put("name", a.name());
        if (!a.namespace().isEmpty()) {
            request.put("namespace", a.namespace());
        }
        request.put("operation", a.operation());
        ObjectNode user = request.putObject("userInfo").put("username", a.username());
        user.putArray("groups").add("system:authenticated");
        if (a.object() != null) {
            request.set("object", a.object());
        }
        if (!a.operation().equals("CREATE")) {
            JsonNode old = a.oldObject().get();
            if (old != null) {
                request.set("oldObject", old);
            }
        }
        request.put("dryRun", false);
        return review;
    }
}
