// Side-by-side comparison of several plans (TREx's compare_engines notebook).
#include <algorithm>
#include <map>
#include <unordered_map>

#include "trtlens/engine.h"

namespace trtlens {

PlanComparison compare_plans(const std::vector<const EnginePlan*>& plans) {
  PlanComparison c;
  c.plans = plans;
  const size_t n = plans.size();
  std::map<std::string, size_t> type_ix, prec_ix;
  std::vector<std::pair<double, std::string>> type_order;  // first plan's latency, for ordering
  for (size_t p = 0; p < n; ++p) {
    c.total_ms.push_back(plans[p]->total_latency_ms());
    c.layer_counts.push_back(static_cast<int>(plans[p]->layers.size()));
    for (const auto& l : plans[p]->layers) {
      auto [ti, tnew] = type_ix.emplace(l.type, c.types.size());
      if (tnew) {
        c.types.push_back(l.type);
        c.type_ms.emplace_back(n, 0.0);
        c.type_count.emplace_back(n, 0);
      }
      c.type_ms[ti->second][p] += l.avg_ms;
      ++c.type_count[ti->second][p];
      std::string pr = l.precision.empty() ? "none" : l.precision;
      auto [pi, pnew] = prec_ix.emplace(pr, c.precisions.size());
      if (pnew) {
        c.precisions.push_back(pr);
        c.precision_ms.emplace_back(n, 0.0);
        c.precision_count.emplace_back(n, 0);
      }
      c.precision_ms[pi->second][p] += l.avg_ms;
      ++c.precision_count[pi->second][p];
    }
  }
  // Order types by latency summed over all plans, largest first.
  std::vector<size_t> perm(c.types.size());
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = i;
  auto sum = [&](const std::vector<double>& v) { double s = 0; for (double x : v) s += x; return s; };
  std::stable_sort(perm.begin(), perm.end(), [&](size_t a, size_t b) { return sum(c.type_ms[a]) > sum(c.type_ms[b]); });
  PlanComparison sorted = c;
  for (size_t i = 0; i < perm.size(); ++i) {
    sorted.types[i] = c.types[perm[i]];
    sorted.type_ms[i] = c.type_ms[perm[i]];
    sorted.type_count[i] = c.type_count[perm[i]];
  }
  c.types = std::move(sorted.types);
  c.type_ms = std::move(sorted.type_ms);
  c.type_count = std::move(sorted.type_count);

  // Layers matched by (unique) name.
  std::unordered_map<std::string, size_t> layer_ix;
  for (size_t p = 0; p < n; ++p) {
    for (const auto& l : plans[p]->layers) {
      auto [it, fresh] = layer_ix.emplace(l.name, c.layers.size());
      if (fresh) {
        LayerMatch m;
        m.name = l.name;
        m.type = l.type;
        m.avg_ms.assign(n, std::nullopt);
        c.layers.push_back(std::move(m));
      }
      if (l.timed || !plans[p]->has_profile) c.layers[it->second].avg_ms[p] = l.avg_ms;
      else c.layers[it->second].avg_ms[p] = std::nullopt;
    }
  }
  for (const auto& m : c.layers) {
    bool all = true;
    for (size_t p = 0; p < n; ++p) {
      bool present = false;
      // present means the name exists in plan p (timed or not)
      present = m.avg_ms[p].has_value();
      all &= present;
    }
    c.matched_in_all += all;
  }
  return c;
}

}  // namespace trtlens
