#include "tra/einsum_lowering.hpp"

#include <map>
#include <set>

#include "tra/contraction_order.hpp"
#include "tra/einsum_diagonal.hpp"
#include "tra/einsum_retile.hpp"

namespace tra {

namespace {

std::string labels_error(const std::string& text, const std::string& why) {
    return "einsum \"" + text + "\": " + why;
}

// An operand may repeat a label (a diagonal or trace, einsum_diagonal.hpp); the output may not.
void check_labels(const std::string& text, const std::string& labels, const std::string& what,
                  bool may_repeat) {
    std::set<char> seen;
    for (char c : labels) {
        if (c < 'a' || c > 'z')
            throw Error(labels_error(text, std::string("'") + c + "' in " + what +
                                               " is not a label (labels are single lowercase "
                                               "letters)"));
        if (!seen.insert(c).second && !may_repeat)
            throw Error(
                labels_error(text, std::string("label '") + c + "' is repeated in " + what));
    }
}

std::string strip_spaces(const std::string& s) {
    std::string out;
    for (char c : s)
        if (c != ' ' && c != '\t') out += c;
    return out;
}

std::size_t position_of(const std::string& labels, char c) {
    return labels.find(c);
}

}  // namespace

std::optional<EinsumSpec> operand_spec(const EinsumStep& step) {
    EinsumSpec spec;
    try {
        spec = EinsumSpec::parse(step.spec);
    } catch (const Error&) {
        return std::nullopt;
    }
    if (spec.operands.size() != step.inputs.size()) return std::nullopt;
    return spec;
}

EinsumSpec EinsumSpec::parse(const std::string& raw) {
    const std::string text = strip_spaces(raw);
    EinsumSpec spec;
    const auto arrow = text.find("->");
    const std::string lhs = text.substr(0, arrow);
    if (lhs.empty()) throw Error(labels_error(raw, "no operands before '->'"));
    std::size_t start = 0;
    while (true) {
        const auto comma = lhs.find(',', start);
        spec.operands.push_back(lhs.substr(start, comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    for (std::size_t i = 0; i < spec.operands.size(); ++i)
        check_labels(raw, spec.operands[i], "operand " + std::to_string(i + 1), true);
    if (arrow == std::string::npos) {
        std::map<char, int> count;
        for (const auto& op : spec.operands)
            for (char c : op) ++count[c];
        for (auto [c, n] : count)
            if (n == 1) spec.output += c;
    } else {
        spec.output = text.substr(arrow + 2);
        check_labels(raw, spec.output, "the output", false);
        for (char c : spec.output) {
            bool found = false;
            for (const auto& op : spec.operands) found = found || op.find(c) != std::string::npos;
            if (!found)
                throw Error(labels_error(
                    raw, std::string("output label '") + c + "' appears in no operand"));
        }
    }
    return spec;
}

std::string EinsumSpec::str() const {
    std::string s;
    for (std::size_t i = 0; i < operands.size(); ++i) s += (i ? "," : "") + operands[i];
    return s + "->" + output;
}

namespace {

// Builds the nodes for one einsum step. Each operand, written or joined so far, is a relation
// with a string of labels naming its key positions (and, equally, its tile dimensions).
class EinsumLowering {
  public:
    EinsumLowering(ProgramBuilder& b, const std::string& name, const EinsumStep& step,
                   const StepSource& src)
        : b_(b), name_(name), step_(step), src_(src) {}

    NodeId run() {
        EinsumSpec spec;
        try {
            spec = EinsumSpec::parse(step_.spec);
        } catch (const Error& e) {
            throw e.located(src_.at("einsum"));
        }
        if (spec.operands.size() != step_.inputs.size())
            throw Error("einsum \"" + step_.spec + "\" has " +
                            std::to_string(spec.operands.size()) + " operand(s) but inputs names " +
                            std::to_string(step_.inputs.size()),
                        src_.at("inputs"));
        const auto extents = check_operands(spec);
        join_ = join_kernel();
        agg_ = kernels::KernelCall(step_.agg_op);
        if (join_.operand_count() != 2 || !join_.properties().elementwise)
            throw Error("join op '" + join_.str() + "' is not an element-wise binary kernel",
                        src_.at("join"));
        if (!agg_.properties().aggregation() || !agg_.properties().elementwise)
            throw Error("agg op '" + step_.agg_op +
                            "' is not an associative, commutative element-wise kernel",
                        src_.at("agg"));
        early_sums_ = join_.distributes_over(agg_);

        if (spec.operands.size() == 1) return single(spec);
        ContractionProblem problem{spec.operands, spec.output, {}, early_sums_};
        for (const auto& [label, e] : extents)
            problem.extent[static_cast<std::size_t>(label - 'a')] =
                static_cast<double>(e.first) * static_cast<double>(e.second);
        // The operands not joined yet, as the path indexes them; `first` is the earliest written
        // operand each holds.
        struct Pending {
            std::string relation, labels;
            std::size_t first;
        };
        std::vector<Pending> pending;
        for (std::size_t i = 0; i < spec.operands.size(); ++i)
            pending.push_back({step_.inputs[i], spec.operands[i], i});
        const ContractionPath path = choose_contraction_order(problem).path;
        for (std::size_t s = 0; s < path.size(); ++s) {
            const auto [i, j] = path[s];
            Pending left = pending.at(i), right = pending.at(j);
            pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(j));
            pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
            // The side holding the earlier written operand goes left, so keys keep the written
            // order as far as the path allows (left to right: exactly as written).
            if (right.first < left.first) std::swap(left, right);
            std::set<char> needed(spec.output.begin(), spec.output.end());
            for (const Pending& p : pending) needed.insert(p.labels.begin(), p.labels.end());
            auto [rel, lab] = join(left.relation, left.labels, right.relation, right.labels, needed,
                                   pending.empty(), spec.output, s + 1);
            pending.push_back({rel, lab, left.first});
        }
        return b_.lookup(name_, src_.step);
    }

  private:
    // Each label's frontier and tile bound, alike in every operand: retile_operands made them so
    // or refused the step; checked again because the joins are exact only then.
    std::map<char, std::pair<std::int64_t, std::int64_t>> check_operands(const EinsumSpec& spec) {
        std::map<char, std::pair<std::int64_t, std::int64_t>> extent;  // frontier, bound
        std::map<char, std::string> first_user;
        for (std::size_t i = 0; i < spec.operands.size(); ++i) {
            const Node& n = b_.node(b_.lookup(step_.inputs[i], src_.at("inputs")));
            const std::string& labels = spec.operands[i];
            // A block-sparse tensor's absent tiles are zeros: the lowering's joins and sums keep
            // them absent or are refused (sparse_rules.hpp).
            const bool tensor = n.is_tensor() || n.is_sparse_tensor();
            if (n.type.key_arity != labels.size() || n.type.rank() != labels.size() || !tensor)
                throw Error("einsum operand " + n.name + " must be a plain tensor with " +
                                std::to_string(labels.size()) + " dimensions (\"" + labels +
                                "\"), but it is " + n.type.str() +
                                (tensor ? "" : " with holes or an uneven key"),
                            src_.at("inputs"));
            for (std::size_t d = 0; d < labels.size(); ++d) {
                std::pair<std::int64_t, std::int64_t> e{n.frontier[d], n.type.bound[d]};
                auto [it, fresh] = extent.emplace(labels[d], e);
                if (fresh) {
                    first_user[labels[d]] = n.name;
                } else if (it->second != e) {
                    throw Error(std::string("label '") + labels[d] + "' is tiled as " +
                                    std::to_string(it->second.first) + " x " +
                                    std::to_string(it->second.second) + " in " +
                                    first_user[labels[d]] + " but as " + std::to_string(e.first) +
                                    " x " + std::to_string(e.second) + " in " + n.name,
                                src_.at("inputs"));
                }
            }
        }
        return extent;
    }

    // The TRA join's kernel: the named op, or the expression (expr_join, variables a and b).
    kernels::KernelCall join_kernel() const {
        if (step_.join_expr.empty()) return kernels::KernelCall(step_.join_op);
        kernels::KernelParams p;
        p.expr = step_.join_expr;
        return kernels::KernelCall("expr_join", p);
    }

    kernels::KernelCall tile_kernel(const std::string& spec) const {
        kernels::KernelParams p;
        p.spec = spec;
        p.join_op = step_.join_expr.empty() ? step_.join_op : "expr";
        p.expr = step_.join_expr;
        p.agg_op = step_.agg_op;
        return kernels::KernelCall("einsum", p);
    }

    // Orders or sums `rel` (labels `have`, tiles already laid out as `want`) so its key is `want`.
    NodeId finish(const std::string& rel, const std::string& have, const std::string& want,
                  const std::string& out_name) {
        if (have == want) return b_.lookup(rel, src_.step);
        KeyPositions by;
        for (char c : want) by.push_back(position_of(have, c));
        NodeId id;
        if (have.size() == want.size()) {
            std::string key = "(";
            for (std::size_t i = 0; i < by.size(); ++i)
                key += (i ? ", k" : "k") + std::to_string(by[i]);
            id = b_.add_rekey(out_name, rel, key + ")", src_);
        } else {
            id = b_.add_aggregate(out_name, rel, by, agg_, src_);
        }
        b_.set_lowered_from(id, name_);
        return id;
    }

    NodeId single(const EinsumSpec& spec) {
        const std::string& in = spec.operands[0];
        const std::string& out = spec.output;
        const bool more = in != out;
        NodeId t = b_.add_transform(more ? name_ + ".tiles" : name_, step_.inputs[0],
                                    tile_kernel(in + "->" + out), src_);
        b_.set_lowered_from(t, name_);
        if (!more) return t;
        return finish(name_ + ".tiles", in, out, name_);
    }

    std::pair<std::string, std::string> join(const std::string& left, const std::string& lx,
                                             const std::string& right, const std::string& ly,
                                             const std::set<char>& needed, bool last,
                                             const std::string& output, std::size_t step) {
        KeyPositions lk, rk;
        std::string key = lx;  // join output key: left ++ right without the shared labels
        for (std::size_t j = 0; j < ly.size(); ++j) {
            const auto p = position_of(lx, ly[j]);
            if (p != std::string::npos) {
                lk.push_back(p);
                rk.push_back(j);
            } else {
                key += ly[j];
            }
        }
        std::string result;  // labels the tiles keep, in the order the key will take
        if (last) {
            result = output;
        } else if (early_sums_) {
            for (char c : key)
                if (needed.count(c)) result += c;
        } else {
            result = key;
        }
        const std::string suffix = std::to_string(step);
        const std::string join_name = (last && result == key) ? name_ : name_ + ".join" + suffix;
        NodeId j = b_.add_join(join_name, left, right, lk, rk,
                               tile_kernel(lx + "," + ly + "->" + result), src_);
        b_.set_lowered_from(j, name_);
        if (result == key) return {join_name, key};
        const std::string out_name = last ? name_ : name_ + ".sum" + suffix;
        finish(join_name, key, result, out_name);
        return {out_name, result};
    }

    ProgramBuilder& b_;
    const std::string& name_;
    const EinsumStep& step_;
    const StepSource& src_;
    kernels::KernelCall join_, agg_;
    bool early_sums_ = false;
};

}  // namespace

NodeId lower_einsum(ProgramBuilder& builder, const std::string& name, const EinsumStep& step,
                    const StepSource& src) {
    // Operands that tile a label more coarsely are re-cut to its finest tiling first, so every
    // label has one tile grid; then operands with a repeated label become their diagonals, so
    // the lowering below sees distinct labels only.
    const EinsumStep alike = retile_operands(builder, name, step, src);
    const EinsumStep distinct = lower_diagonals(builder, name, alike, src);
    return EinsumLowering(builder, name, distinct, src).run();
}

}  // namespace tra
