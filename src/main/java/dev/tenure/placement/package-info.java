/**
 * A placement forecast: will the replacement of each pod a drain evicts fit on a node that stays schedulable?
 *
 * <p>Pure code over fabric8 model types, like the election core: it never calls the API server, reads no clock and
 * knows nothing of Quarkus or CDI ({@code PlacementArchitectureTest}). One class per kube-scheduler filter plugin
 * ({@code pkg/scheduler/framework/plugins/}), named and worded as the scheduler names and words them; {@link
 * PlacementForecast} runs them in the scheduler's order over a {@link PlacementCluster} built from the operator's
 * caches. It forecasts "fits somewhere", never where the scheduler will put a pod.
 */
package dev.tenure.placement;
