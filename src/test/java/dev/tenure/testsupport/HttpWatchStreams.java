package dev.tenure.testsupport;

import io.fabric8.mockwebserver.MockWebServer;
import io.vertx.core.Handler;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.WebSocketConnectOptions;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * HTTP-streaming watches, as kube-apiserver serves them to kubectl ({@code get -w}, the wait of {@code delete}) and
 * every client-go client: {@code GET ...?watch=true} without a WebSocket upgrade, answered with chunked JSON, one
 * {@code {"type":...,"object":...}} event per line, open until the client goes or {@code timeoutSeconds} passes.
 *
 * <p>The fabric8 mock server serves watches over WebSocket only (its Vert.x handler answers 400 to a plain GET). Its
 * request handler is wrapped here: a plain watch GET opens that WebSocket watch on the emulator itself (so selectors,
 * the request log and faults apply as to any watch) and writes each event it receives as one line; {@code rewrite}
 * may turn an event into another form first (a Table row, for {@code as=Table}). Everything else goes to the mock
 * server's handler unchanged.
 */
final class HttpWatchStreams {

    private HttpWatchStreams() {}

    /**
     * Wraps the request handler {@code server} will install when it starts; call before {@code server.start}.
     *
     * @param rewrite the line to send for an event line, given the request's Accept header and includeObject
     */
    static void install(MockWebServer server, Rewrite rewrite) {
        install(server, rewrite, request -> false, null, null);
    }

    /**
     * As {@link #install(MockWebServer, Rewrite)}; besides, a request {@code offLoop} picks is dispatched to
     * {@code dispatcher} on {@code workers} instead of the server's one event loop: a write that calls an admission
     * webhook waits for it, and the webhook may call this server back meanwhile (the operator's webhook reads
     * NodeMaintenances), which an event loop blocked on the call could never answer.
     */
    static void install(
            MockWebServer server,
            Rewrite rewrite,
            java.util.function.Predicate<HttpServerRequest> offLoop,
            io.fabric8.mockwebserver.http.Dispatcher dispatcher,
            java.util.concurrent.Executor workers) {
        try {
            Field field = MockWebServer.class.getDeclaredField("vertx");
            field.setAccessible(true);
            Vertx real = (Vertx) field.get(server);
            AtomicInteger port = new AtomicInteger();
            Vertx wrapped = proxy(Vertx.class, real, (method, args) -> {
                if (method.getName().equals("createHttpServer")) {
                    HttpServer httpServer = (HttpServer) method.invoke(real, args);
                    return proxy(HttpServer.class, httpServer, (m, a) -> {
                        if (m.getName().equals("requestHandler") && a != null && a.length == 1) {
                            @SuppressWarnings("unchecked")
                            Handler<HttpServerRequest> mock = (Handler<HttpServerRequest>) a[0];
                            return m.invoke(httpServer, (Handler<HttpServerRequest>) request -> {
                                if (isHttpWatch(request)) {
                                    port.set(request.localAddress().port());
                                    stream(real, request, port.get(), rewrite);
                                } else if (offLoop.test(request)) {
                                    dispatchOffLoop(real, request, dispatcher, workers);
                                } else {
                                    mock.handle(request);
                                }
                            });
                        }
                        return m.invoke(httpServer, a);
                    });
                }
                return method.invoke(real, args);
            });
            field.set(server, wrapped);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot wrap the mock server's request handler", e);
        }
    }

    private static void dispatchOffLoop(
            Vertx vertx,
            HttpServerRequest request,
            io.fabric8.mockwebserver.http.Dispatcher dispatcher,
            java.util.concurrent.Executor workers) {
        io.vertx.core.Context context = vertx.getOrCreateContext();
        request.body()
                .onSuccess(body -> workers.execute(() -> {
                    io.fabric8.mockwebserver.http.MockResponse response;
                    try {
                        response = dispatcher.dispatch(new io.fabric8.mockwebserver.http.RecordedRequest(
                                "HTTP/1.1",
                                io.fabric8.mockwebserver.dsl.HttpMethod.fromVertx(request.method()),
                                request.uri(),
                                io.fabric8.mockwebserver.http.Headers.builder()
                                        .addAll(request.headers())
                                        .build(),
                                new io.fabric8.mockwebserver.http.Buffer(body.getBytes())));
                    } catch (RuntimeException e) {
                        response = new io.fabric8.mockwebserver.http.MockResponse()
                                .setResponseCode(500)
                                .setBody(
                                        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"code\":500,"
                                                + "\"reason\":\"InternalError\"}");
                    }
                    io.fabric8.mockwebserver.http.MockResponse answer = response;
                    Handler<Void> write = v -> {
                        HttpServerResponse out = request.response().setStatusCode(answer.code());
                        answer.getHeaders().toMultimap().forEach((name, values) -> out.putHeader(name, values));
                        byte[] bytes = answer.getBody() == null
                                ? new byte[0]
                                : answer.getBody().getBytes();
                        out.end(Buffer.buffer(bytes));
                    };
                    long delay = answer.getBodyDelay() == null
                            ? 0
                            : answer.getBodyDelay().toMillis();
                    context.runOnContext(v -> {
                        if (delay > 0) {
                            vertx.setTimer(delay, id -> write.handle(null));
                        } else {
                            write.handle(null);
                        }
                    });
                }));
    }

    static boolean isHttpWatch(HttpServerRequest request) {
        String watch = request.getParam("watch");
        return request.method() == HttpMethod.GET
                && ("true".equals(watch) || "1".equals(watch))
                && !"websocket".equalsIgnoreCase(request.getHeader("Upgrade"));
    }

    private static void stream(Vertx vertx, HttpServerRequest request, int port, Rewrite rewrite) {
        HttpServerResponse response = request.response();
        String accept = String.valueOf(request.getHeader("Accept"));
        boolean table = accept.contains("as=Table");
        HttpClient client = vertx.createHttpClient();
        MultiMap headers = MultiMap.caseInsensitiveMultiMap();
        if (request.getHeader("User-Agent") != null) {
            headers.add("User-Agent", request.getHeader("User-Agent"));
        }
        WebSocketConnectOptions options = new WebSocketConnectOptions()
                .setHost("127.0.0.1")
                .setPort(port)
                .setURI(request.uri())
                .setHeaders(headers);
        client.webSocket(options)
                .onSuccess(ws -> {
                    response.setChunked(true)
                            .setStatusCode(200)
                            .putHeader(
                                    "Content-Type",
                                    table ? "application/json;as=Table;v=v1;g=meta.k8s.io" : "application/json");
                    ws.textMessageHandler(event -> {
                        if (!response.ended() && !response.closed()) {
                            response.write(Buffer.buffer(
                                    rewrite.apply(event, accept, request.getParam("includeObject")) + "\n"));
                        }
                    });
                    ws.closeHandler(v -> {
                        if (!response.ended() && !response.closed()) {
                            response.end();
                        }
                        client.close();
                    });
                    response.closeHandler(v -> ws.close());
                    String timeout = request.getParam("timeoutSeconds");
                    if (timeout != null && timeout.matches("\\d+") && Long.parseLong(timeout) > 0) {
                        vertx.setTimer(Long.parseLong(timeout) * 1000, id -> ws.close());
                    }
                })
                .onFailure(e -> {
                    client.close();
                    if (e instanceof io.vertx.core.http.UpgradeRejectedException refused
                            && refused.getBody() != null
                            && refused.getBody().length() > 0) {
                        // the emulator answered the watch with an error (a 410, an injected fault): that answer
                        response.setStatusCode(refused.getStatus())
                                .putHeader("Content-Type", "application/json")
                                .end(refused.getBody());
                        return;
                    }
                    response.setStatusCode(500)
                            .putHeader("Content-Type", "application/json")
                            .end("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"code\":500,"
                                    + "\"reason\":\"InternalError\",\"message\":\"emulated cluster: watch: "
                                    + String.valueOf(e.getMessage()).replace("\"", "'") + "\"}");
                });
    }

    /** What is sent for one watch event. */
    @FunctionalInterface
    interface Rewrite {
        String apply(String event, String accept, String includeObject);
    }

    @FunctionalInterface
    private interface Call {
        Object invoke(Method method, Object[] args) throws ReflectiveOperationException;
    }

    private static <T> T proxy(Class<T> type, T target, Call call) {
        // a fluent call answers the proxy, so the next call in a chain is seen too
        InvocationHandler handler = (p, method, args) -> {
            try {
                Object result = call.invoke(method, args);
                return result == target ? p : result;
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler));
    }
}
