#include <algorithm>
#include <iostream>
#include <sstream>

#include "ia/fused_joins.hpp"
#include "ia/loop_carry.hpp"
#include "ia/operator_spec.hpp"
#include "ia/peak_memory.hpp"
#include "ia/plan_costs.hpp"
#include "ia/time_estimate.hpp"
#include "json_writer.hpp"
#include "plan_request.hpp"
#include "program_table.hpp"
#include "tra/einsum_orders.hpp"
#include "verbs.hpp"
#include "workflow/plan_file.hpp"

namespace tra::cli {

namespace {

struct ExplainOptions {
    PlanFlags request;  // request.workflow holds the workflow or plan file
    std::string format = "text";
};

// Which local joins run fused with the aggregate that reads them (ia/fused_joins.hpp), both
// ways: explain shows the plan as the runtime runs it, and a fused join's products never exist.
struct Fusion {
    std::vector<std::optional<ia::IaNodeId>> into;  // join -> its aggregate
    std::vector<std::optional<ia::IaNodeId>> with;  // aggregate -> its join
    explicit Fusion(const ia::Plan& plan) : into(ia::fused_joins(plan)), with(plan.size()) {
        for (ia::IaNodeId id = 0; id < into.size(); ++id)
            if (into[id]) with.at(*into[id]) = id;
    }
    // " (fused into #5)", " (fused with #4)" or "".
    std::string note(ia::IaNodeId id) const {
        if (into.at(id)) return " (fused into #" + std::to_string(*into[id]) + ")";
        if (with.at(id)) return " (fused with #" + std::to_string(*with[id]) + ")";
        return "";
    }
};

std::string inputs_of(const ia::IaNode& n) {
    std::string s;
    for (auto in : n.inputs) s += (s.empty() ? "#" : ",#") + std::to_string(in);
    return s.empty() ? "-" : s;
}

// What the node does in TRA terms: the origin's operator for local ops, nothing for enforcers.
std::string does(const ia::Plan& plan, const ia::IaNode& n) {
    if (ia::is_enforcer(n.op)) return "";
    if (n.replicated) return "replicate " + n.replicated->spec.str();
    // The node's own operator: an RMM join applies the TRA join on every key position.
    return operator_args(n.logical ? *n.logical : plan.origin(n.id).op);
}

std::int64_t resident_max(const ia::IaNode& n) {
    return n.cost.resident.empty()
               ? 0
               : *std::max_element(n.cost.resident.begin(), n.cost.resident.end());
}

std::string rules_of(const ia::IaNode& n) {
    std::string s;
    for (const auto& r : n.rules) s += (s.empty() ? "" : ",") + r;
    return s;
}

// The time model's view of a plan: seconds per operator, and the profile that predicted them.
struct Predicted {
    ia::MachineProfile profile;
    std::vector<ia::OperatorTime> times;
    double total() const {
        double sum = 0;
        for (const auto& t : times) sum += t.seconds();
        return sum;
    }
};

// A loop (Program::repeat): how often the plan runs, and each carry's move between iterations
// with its exact bytes (ia/loop_carry.hpp); the figures above are one iteration's, carry included.
void print_loop(std::ostream& out, const ia::Plan& plan) {
    const auto& repeat = plan.program().repeat;
    if (!repeat) return;
    out << "loop: the plan runs " << repeat->times
        << " times; the figures above are one iteration's, with the carry that ends it\n";
    for (const ia::CarryMove& m : ia::carry_moves(plan))
        out << "carry " << plan.relation(m.input).name << " <- #" << m.step << " "
            << plan.relation(m.step).name << ": " << plan.node(m.step).placement.str() << " -> #"
            << m.input << " " << plan.node(m.input).placement.str() << ", "
            << m.transfer.payload_bytes << " bytes payload + " << m.transfer.overhead_bytes
            << " overhead\n";
}

void print_text(std::ostream& out, const ia::Plan& plan, const std::string& name,
                const ia::PlanTotals& t, const optimizer::RewriteLog& rewrites,
                const Predicted& predicted) {
    out << "plan " << name << " of workflow " << plan.program().name << " on " << plan.sites()
        << " sites\n";
    out << "transfer: " << t.payload_bytes << " bytes payload (" << human_bytes(t.payload_bytes)
        << ") + " << t.overhead_bytes << " bytes overhead; paper model " << t.paper_floats
        << " floats; peak " << t.peak_bytes << " bytes per site (" << human_bytes(t.peak_bytes)
        << "); " << t.flops << " flops\n";
    char total[32];
    std::snprintf(total, sizeof total, "%.4g", predicted.total());
    out << "time: " << total << " s predicted; " << machine_line(predicted.profile) << "\n";
    for (const auto& r : rewrites) out << "rewrite: " << r.str() << "\n";
    print_auto_tiling(out, plan.program(), true);
    print_einsum_orders(out, plan.program());
    const Fusion fusion(plan);
    for (ia::IaNodeId id = 0; id < plan.size(); ++id)
        if (fusion.into[id])
            out << "fused: #" << id << " " << ia::op_name(plan.node(id).op) << " runs inside #"
                << *fusion.into[id] << " " << ia::op_name(plan.node(*fusion.into[id]).op)
                << ": one accumulator per group, its products are never stored\n";
    std::vector<std::vector<std::string>> rows = {
        {"id", "operator", "inputs", "relation", "type", "frontier", "tuples", "placement",
         "paper floats", "exact bytes", "overhead", "resident/site", "est. s", "rules", "does"}};
    for (const ia::IaNode& n : plan.nodes()) {
        const Node& o = plan.relation(n.id);  // A* for a replicated relation
        char paper[32], seconds[32];
        std::snprintf(paper, sizeof paper, "%.0f", n.cost.paper_floats);
        std::snprintf(seconds, sizeof seconds, "%.3g", predicted.times.at(n.id).seconds());
        rows.push_back({"#" + std::to_string(n.id), ia::op_label(n) + fusion.note(n.id),
                        inputs_of(n), o.name, o.type.str(), o.frontier.str(),
                        std::to_string(o.tuples()), n.placement.str(), paper,
                        std::to_string(n.cost.transfer.payload_bytes),
                        std::to_string(n.cost.transfer.overhead_bytes),
                        std::to_string(resident_max(n)), seconds, rules_of(n), does(plan, n)});
    }
    print_columns(out, rows);
    print_loop(out, plan);
    for (const auto& [tra, ia] : plan.results())
        for (const Output& o : plan.program().outputs)
            if (o.node == tra)
                out << "output " << plan.program().node(tra).name << " <- #" << ia << " -> "
                    << o.file << ":" << o.dataset << "\n";
}

void print_json(std::ostream& out, const ia::Plan& plan, const std::string& name,
                const ia::PlanTotals& t, const Predicted& predicted) {
    JsonWriter j(out);
    j.begin_object()
        .field("workflow", plan.program().name)
        .field("plan", name)
        .field("sites", plan.sites())
        .field("paper_floats", t.paper_floats)
        .field("paper_floats_aggregated", t.paper_floats_aggregated)
        .field("exact_bytes", t.payload_bytes)
        .field("overhead_bytes", t.overhead_bytes)
        .field("peak_bytes_per_site", t.peak_bytes)
        .field("flops", t.flops)
        .field("estimated_seconds", predicted.total());
    write_machine_json(j, predicted.profile);
    // The tiles chosen for the tile: auto inputs (docs/workflow-format.md, "Automatic tiling").
    j.key("tiling").begin_object();
    for (const auto& [input, tile] : plan.program().tiling) j.field(input, tile.values());
    j.end_object();
    // The contraction order of each multi-operand einsum, as the text's "einsum Z: order" lines.
    j.key("einsum_orders").begin_array();
    for (const EinsumOrder& e : einsum_orders(plan.program()))
        j.begin_object()
            .field("output", e.step)
            .field("order", e.tree)
            .field("flops", e.flops)
            .end_object();
    j.end_array();
    j.key("operators").begin_array();
    const Fusion fusion(plan);
    for (const ia::IaNode& n : plan.nodes()) {
        const Node& o = plan.relation(n.id);
        std::vector<std::int64_t> inputs(n.inputs.begin(), n.inputs.end());
        j.begin_object()
            .field("id", n.id)
            .field("op", ia::op_name(n.op))
            .field("inputs", inputs)
            .field("origin", plan.origin(n.id).name)
            .field("tra_op", operator_name(plan.origin(n.id).op))
            .field("does", does(plan, n))
            .field("key_arity", o.type.key_arity)
            .field("tile", o.type.bound.values())
            .field("dtype", name_of(o.type.dtype))
            .field("frontier", o.frontier.values())
            .field("tuples", o.tuples())
            .field("placement", n.placement.str());
        const ia::OperatorSpec& spec = ia::operator_spec(n.op);
        if (spec.has_dims) {
            std::vector<std::int64_t> dims(n.shuffle_dims.begin(), n.shuffle_dims.end());
            j.field("dims", dims);
        }
        if (spec.has_arity) j.field("arity", n.map_arity);
        if (n.replicated) j.field("replicate", n.replicated->spec.str());
        if (fusion.into[n.id]) j.field("fused_into", *fusion.into[n.id]);
        if (fusion.with[n.id]) j.field("fused_with", *fusion.with[n.id]);
        j.field("paper_floats", n.cost.paper_floats)
            .field("exact_bytes", n.cost.transfer.payload_bytes)
            .field("overhead_bytes", n.cost.transfer.overhead_bytes)
            .field("resident_bytes_per_site", n.cost.resident.values())
            .field("flops", n.cost.flops)
            .field("estimated_seconds", predicted.times.at(n.id).seconds())
            .field("rules", n.rules)
            .end_object();
    }
    j.end_array();
    if (const auto& repeat = plan.program().repeat) {  // a loop: its carry's moves
        j.key("loop").begin_object().field("times", repeat->times);
        j.key("carry").begin_array();
        for (const ia::CarryMove& m : ia::carry_moves(plan))
            j.begin_object()
                .field("input", plan.relation(m.input).name)
                .field("input_node", static_cast<std::int64_t>(m.input))
                .field("step_node", static_cast<std::int64_t>(m.step))
                .field("exact_bytes", m.transfer.payload_bytes)
                .field("overhead_bytes", m.transfer.overhead_bytes)
                .end_object();
        j.end_array().end_object();
    }
    j.end_object();
}

std::string dot_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '\n')
            out += "\\n";
        else
            out += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
    }
    return out;
}

void print_dot(std::ostream& out, const ia::Plan& plan, const std::string& name) {
    out << "digraph plan {\n  rankdir=BT;\n  label=\"" << dot_escape(name) << " on " << plan.sites()
        << " sites\";\n  node [shape=box, fontname=\"monospace\"];\n";
    // The einsum contraction orders, as the text's "einsum Z: order ..." lines, one comment each.
    for (const EinsumOrder& e : einsum_orders(plan.program())) out << "  // " << e.str() << "\n";
    const Fusion fusion(plan);
    for (const ia::IaNode& n : plan.nodes()) {
        const Node& o = plan.relation(n.id);
        std::string label = "#" + std::to_string(n.id) + " " + ia::op_label(n) + fusion.note(n.id) +
                            "\n" + o.name + " " + o.type.str() + "\n" + n.placement.str();
        if (ia::is_enforcer(n.op))
            label += "\nexact " + std::to_string(n.cost.transfer.payload_bytes) + " B";
        out << "  n" << n.id << " [label=\"" << dot_escape(label) << "\""
            << (ia::is_enforcer(n.op) ? ", style=filled, fillcolor=\"#ffe0b0\"" : "") << "];\n";
        for (auto in : n.inputs) out << "  n" << in << " -> n" << n.id << ";\n";
    }
    out << "}\n";
}

void explain(const ExplainOptions& opt) {
    std::unique_ptr<workflow::LoadedPlan> loaded;
    optimizer::RankedPlans ranked;
    const ia::Plan* plan = nullptr;
    std::string name;
    ia::PlanTotals totals;
    optimizer::RewriteLog rewrites;
    if (workflow::is_plan_file(opt.request.workflow)) {
        loaded =
            std::make_unique<workflow::LoadedPlan>(workflow::load_plan_file(opt.request.workflow));
        if (opt.request.sites && *opt.request.sites != loaded->plan.sites())
            throw Error("the plan file is for " + std::to_string(loaded->plan.sites()) +
                        " sites, not " + std::to_string(*opt.request.sites));
        totals = ia::annotate_costs(loaded->plan);
        plan = &loaded->plan;
        name = loaded->name;
    } else {
        ranked = plan_workflow(opt.request);
        const auto& chosen = choose_plan(ranked, opt.request);
        plan = &chosen.plan;
        name = chosen.name;
        totals = chosen.totals;
        rewrites = ranked.rewrites;
    }
    const ia::TimeModel model = time_model(opt.request.time, plan->sites());
    if (loaded) {  // the peak with the kernels' scratch, as the planner gives it
        const ia::PlanScratch scratch = ia::kernel_scratch(*plan, model.profile);
        totals.peak_per_site = ia::peak_per_site(*plan, {}, {}, &scratch);
        totals.peak_bytes =
            *std::max_element(totals.peak_per_site.begin(), totals.peak_per_site.end());
    }
    if (opt.request.memory_per_site && totals.peak_bytes > *opt.request.memory_per_site)
        throw Error("plan " + name + " needs " + std::to_string(totals.peak_bytes) +
                    " bytes per site, have " + std::to_string(*opt.request.memory_per_site));
    const Predicted predicted{model.profile, ia::operator_times(*plan, model)};
    if (opt.format == "json")
        print_json(std::cout, *plan, name, totals, predicted);
    else if (opt.format == "dot")
        print_dot(std::cout, *plan, name);
    else
        print_text(std::cout, *plan, name, totals, rewrites, predicted);
}

}  // namespace

void add_explain(CLI::App& app, int& exit_code) {
    auto* cmd = app.add_subcommand(
        "explain",
        "Show one plan operator by operator: placement, type, frontier and predicted "
        "cost of each IA operator (from a workflow, or a plan file from tra plan -o)");
    auto opt = std::make_shared<ExplainOptions>();
    cmd->add_option("source", opt->request.workflow, "Workflow or plan file (YAML)")->required();
    add_plan_request_options(cmd, opt->request);
    cmd->add_option("--format", opt->format, "text, json or dot (Graphviz)")
        ->check(CLI::IsMember({"text", "json", "dot"}));
    cmd->callback([opt, &exit_code] {
        explain(*opt);
        exit_code = 0;
    });
}

}  // namespace tra::cli
