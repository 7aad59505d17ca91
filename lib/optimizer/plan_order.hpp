#pragma once
// The one order in which plans are ranked, shared by the search (which keeps the cheapest plan of
// each name, and the beam's partial plans) and the planner (which ranks whole plans under the
// user's cost model):
//
//   exact  payload bytes, then paper floats, then the tie-break text (a plan's name)
//   paper  paper floats first, then as exact
//   time   estimated seconds first, then as exact
//
// Exact bytes come first in every model's tie-break because they are what the runtime really
// moves. The order is total and deterministic, so every rank and every run ranks alike.
#include <string>
#include <string_view>
#include <tuple>

#include "ia/plan_costs.hpp"

namespace tra::optimizer {

enum class CostModel { Exact, Paper, Time };

// "exact", "paper", "time".
std::string cost_name(CostModel model);

// Whether plan a ranks before plan b under `model`. `seconds` matter only for CostModel::Time.
inline bool cheaper(CostModel model, const ia::PlanTotals& a, double a_seconds,
                    std::string_view a_tie, const ia::PlanTotals& b, double b_seconds,
                    std::string_view b_tie) {
    if (model == CostModel::Paper && a.paper_floats != b.paper_floats)
        return a.paper_floats < b.paper_floats;
    if (model == CostModel::Time && a_seconds != b_seconds) return a_seconds < b_seconds;
    return std::tie(a.payload_bytes, a.paper_floats, a_tie) <
           std::tie(b.payload_bytes, b.paper_floats, b_tie);
}

// The exact order, for callers without a time estimate (the search).
inline bool cheaper(const ia::PlanTotals& a, std::string_view a_tie, const ia::PlanTotals& b,
                    std::string_view b_tie) {
    return cheaper(CostModel::Exact, a, 0, a_tie, b, 0, b_tie);
}

}  // namespace tra::optimizer
