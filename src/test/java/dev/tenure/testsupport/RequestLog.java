package dev.tenure.testsupport;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/** Every request the emulated API server received, in arrival order (internal emulator writes excluded). */
public final class RequestLog {
  private final List<ApiRequest> requests = new CopyOnWriteArrayList<>();

  void record(ApiRequest request) {
    requests.add(request);
  }

  public List<ApiRequest> all() {
    return List.copyOf(requests);
  }

  public List<ApiRequest> matching(Predicate<ApiRequest> predicate) {
    return requests.stream().filter(predicate).toList();
  }

  public long count(Predicate<ApiRequest> predicate) {
    return requests.stream().filter(predicate).count();
  }

  public void clear() {
    requests.clear();
  }
}
