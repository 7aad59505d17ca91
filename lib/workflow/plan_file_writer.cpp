// Writing plan files (docs/plan-format.md). The text is produced by hand rather than through
// yaml-cpp's emitter so that each node is one readable line with a comment, in a fixed layout
// that diffs well; the reader (plan_file.cpp) parses it with yaml-cpp like any hand edit.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>
#include <regex>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "core/content_hash.hpp"
#include "core/error.hpp"
#include "ia/operator_spec.hpp"
#include "ia/plan_costs.hpp"
#include "workflow/plan_file.hpp"

namespace tra::workflow {

namespace fs = std::filesystem;

namespace {

// A YAML double-quoted scalar: safe for any text (paths, rule names with ':', key functions).
std::string yaml_quoted(const std::string& s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c < 0x20 || c == 0x7f) {
            char hex[5];
            std::snprintf(hex, sizeof hex, "\\x%02x", c);
            out += hex;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out + "\"";
}

// Relation names are identifiers, or "D.join" for a lowered einsum: plain in a flow map.
std::string name_scalar(const std::string& s) {
    static const std::regex plain(R"([A-Za-z_][A-Za-z0-9_.]*)");
    return std::regex_match(s, plain) ? s : yaml_quoted(s);
}

template <typename T>
std::string list(const std::vector<T>& items) {
    std::string s = "[";
    for (std::size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + std::to_string(items[i]);
    return s + "]";
}

// The workflow path as the plan file will name it: relative to the plan file's folder when the
// caller gave a relative path, so moving both files together keeps the reference valid.
std::string workflow_reference(const std::string& workflow_path, const std::string& plan_path) {
    const fs::path wf(workflow_path);
    if (wf.is_absolute()) return workflow_path;
    const fs::path folder = plan_path.empty() || plan_path == "-"
                                ? fs::current_path()
                                : fs::absolute(plan_path).parent_path();
    const fs::path target = fs::absolute(wf).lexically_normal();
    const fs::path rel = target.lexically_relative(folder.lexically_normal());
    return rel.empty() ? target.generic_string() : rel.generic_string();
}

// What a local operator does, for readers: "join on [1]=[0] kernel matmul". Ignored on read,
// since the operator is the origin's. Enforcers say nothing: op, dims and placement are all.
std::string does(const ia::IaNode& n) {
    if (!n.logical) return "";
    return operator_name(*n.logical) + " " + operator_args(*n.logical);
}

// "  # moves 512 B (+ 96 B keys and counts); paper 64 floats" for enforcers once costed.
std::string cost_comment(const ia::IaNode& n) {
    if (!n.cost.annotated || !ia::is_enforcer(n.op)) return "";
    return "  # moves " + std::to_string(n.cost.transfer.payload_bytes) + " B (+ " +
           std::to_string(n.cost.transfer.overhead_bytes) + " B keys and counts)";
}

std::string node_line(const ia::Plan& plan, const ia::IaNode& n) {
    std::string s = "  - {id: " + std::to_string(n.id) + ", op: " + ia::op_name(n.op) +
                    ", origin: " + name_scalar(plan.origin(n.id).name);
    const ia::OperatorSpec& spec = ia::operator_spec(n.op);
    if (spec.arity > 0) s += ", inputs: " + list(n.inputs);
    if (spec.has_dims) s += ", dims: " + list(n.shuffle_dims);
    if (spec.has_arity) s += ", arity: " + std::to_string(n.map_arity);
    if (spec.makes_replicas && n.replicated)
        s += ", replicate: " + yaml_quoted(n.replicated->spec.str());
    s += ", placement: " + yaml_quoted(n.placement.str());
    std::string rules;
    for (const auto& r : n.rules) rules += (rules.empty() ? "" : ", ") + yaml_quoted(r);
    s += ", rules: [" + rules + "]";
    if (auto d = does(n); !d.empty()) s += ", does: " + yaml_quoted(d);
    return s + "}";
}

}  // namespace

void write_plan_file(std::ostream& out, const ia::Plan& plan, const std::string& workflow_path,
                     const std::string& plan_name, const std::string& plan_path,
                     const std::optional<RankedBy>& ranked_by) {
    const std::string hash = file_content_hash(workflow_path);
    // Costs on a copy: the caller's plan stays const, and a plan whose costs cannot be computed
    // (an Unknown placement not produced by a map chain) is still written, without them.
    ia::Plan costed = plan;
    std::optional<ia::PlanTotals> totals;
    try {
        totals = ia::annotate_costs(costed);
    } catch (const Error&) {
        costed = plan;
    }
    out << "# tra plan file (docs/plan-format.md). Edit by hand if you like: tra re-checks every\n"
           "# node against the workflow on load. Costs are recomputed on load; the numbers in\n"
           "# comments are what they were when this file was written.\n";
    if (totals)
        out << "# predicted (exact): " << totals->payload_bytes << " B payload + "
            << totals->overhead_bytes << " B overhead; paper model: " << totals->paper_floats
            << " floats; peak " << totals->peak_bytes << " B per site\n";
    out << "format: " << kPlanFormat << "\n"
        << "name: " << yaml_quoted(plan_name) << "\n"
        << "sites: " << plan.sites() << "\n";
    if (ranked_by)
        out << "ranked_by: {cost: " << yaml_quoted(ranked_by->cost)
            << ", machine: " << yaml_quoted(ranked_by->machine)
            << ", machine_hash: " << yaml_quoted(ranked_by->machine_hash) << "}\n";
    if (!plan.program().rewrites.empty()) {
        out << "rewrites: [";
        for (std::size_t i = 0; i < plan.program().rewrites.size(); ++i)
            out << (i ? ", " : "") << yaml_quoted(plan.program().rewrites[i]);
        out << "]\n";
    }
    if (!plan.program().tiling.empty()) {  // the tiles chosen for the tile: auto inputs
        out << "tiling: {";
        const char* sep = "";
        for (const auto& [input, tile] : plan.program().tiling) {
            out << sep << input << ": [";
            for (std::size_t d = 0; d < tile.size(); ++d) out << (d ? ", " : "") << tile[d];
            out << "]";
            sep = ", ";
        }
        out << "}\n";
    }
    out << "workflow:\n"
        << "  path: " << yaml_quoted(workflow_reference(workflow_path, plan_path)) << "\n"
        << "  hash: " << yaml_quoted(hash) << "\n"
        << "nodes:\n";
    for (const ia::IaNode& n : costed.nodes())
        out << node_line(costed, n) << cost_comment(n) << "\n";
}

void save_plan_file(const std::string& plan_path, const ia::Plan& plan,
                    const std::string& workflow_path, const std::string& plan_name,
                    const std::optional<RankedBy>& ranked_by) {
    std::ostringstream text;
    write_plan_file(text, plan, workflow_path, plan_name, plan_path, ranked_by);
    const std::string tmp = plan_path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << text.str();
        out.flush();
        if (!out) throw Error("cannot write plan file '" + tmp + "'", {}, ErrorKind::Failed);
    }
    std::error_code ec;
    fs::rename(tmp, plan_path, ec);
    if (ec) {
        fs::remove(tmp, ec);
        throw Error("cannot write plan file '" + plan_path + "'", {}, ErrorKind::Failed);
    }
}

}  // namespace tra::workflow
