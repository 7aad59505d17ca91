// From folded syntax tree to Program: one instruction per operation, operands evaluated heavier
// first so few temporaries are alive at once, each distinct constant stored once, and the
// result's temporary written by the last instruction alone (the evaluator points it at the
// output). Then f(0) = 0 is checked by evaluating the program on zeros.
#include <bit>
#include <map>
#include <utility>

#include "kernels/expression_ops.hpp"
#include "kernels/expression_syntax.hpp"

namespace tra::kernels::expr {
namespace {

// An operand before slots are numbered: constants and temporaries are counted only at the end.
struct Ref {
    enum class Kind { Input, Constant, Temporary } kind;
    std::uint16_t index;
};

struct Pending {
    Op op;
    Ref dst, a, b;
};

class Codegen {
  public:
    Codegen(std::string_view text, const Tree& tree, Program& program)
        : text_(text), tree_(tree), program_(program) {}

    void run() {
        const Node& root = node(tree_.root);
        // Temporary 0 is the result's alone, so the evaluator may point it at the output.
        free_.assign(1, false);
        const Ref result = emit(tree_.root, root.kind == Node::Kind::Apply);
        const auto inputs = program_.inputs;
        const auto constants = static_cast<std::uint16_t>(program_.constants.size());
        // None at all when the whole expression is an input or a constant.
        program_.temporaries =
            static_cast<std::uint16_t>(root.kind == Node::Kind::Apply ? free_.size() : 0);
        auto slot = [&](const Ref& r) -> std::uint16_t {
            switch (r.kind) {
                case Ref::Kind::Input:
                    return r.index;
                case Ref::Kind::Constant:
                    return static_cast<std::uint16_t>(inputs + r.index);
                case Ref::Kind::Temporary:
                    break;
            }
            return static_cast<std::uint16_t>(inputs + constants + r.index);
        };
        for (const Pending& p : code_)
            program_.code.push_back({p.op, slot(p.dst), slot(p.a), slot(p.b)});
        program_.result = slot(result);
    }

  private:
    const Node& node(std::int32_t i) const { return tree_.nodes[static_cast<std::size_t>(i)]; }

    Ref emit(std::int32_t i, bool root = false) {
        const Node& n = node(i);
        if (n.kind == Node::Kind::Input) return {Ref::Kind::Input, n.input};
        if (n.kind == Node::Kind::Constant) return constant(n);
        Ref a{Ref::Kind::Input, 0}, b{Ref::Kind::Input, 0};
        if (!is_binary(n.op)) {
            a = emit(n.a);
        } else if (node(n.a).need >= node(n.b).need) {
            a = emit(n.a);
            b = emit(n.b);
        } else {
            b = emit(n.b);
            a = emit(n.a);
        }
        // dst before the operands are released: distinct slots let the loops assume no alias.
        const Ref dst = root ? Ref{Ref::Kind::Temporary, 0} : allocate();
        release(a);
        if (is_binary(n.op)) release(b);
        code_.push_back({n.op, dst, a, b});
        return dst;
    }

    Ref constant(const Node& n) {
        // By bits: 0 and -0 differ, and NaN (from folding 0/0) equals itself.
        for (std::size_t k = 0; k < program_.constants.size(); ++k)
            if (std::bit_cast<std::uint64_t>(program_.constants[k]) ==
                    std::bit_cast<std::uint64_t>(n.value) &&
                std::bit_cast<std::uint32_t>(program_.constants_f32[k]) ==
                    std::bit_cast<std::uint32_t>(n.value_f32))
                return {Ref::Kind::Constant, static_cast<std::uint16_t>(k)};
        program_.constants.push_back(n.value);
        program_.constants_f32.push_back(n.value_f32);
        return {Ref::Kind::Constant, static_cast<std::uint16_t>(program_.constants.size() - 1)};
    }

    Ref allocate() {
        for (std::size_t t = 1; t < free_.size(); ++t)
            if (free_[t]) {
                free_[t] = false;
                return {Ref::Kind::Temporary, static_cast<std::uint16_t>(t)};
            }
        // Unreachable within kMaxLength (see kMaxTemporaries), but the GPU relies on the bound.
        if (free_.size() >= kMaxTemporaries)
            fail(text_, 1,
                 "the expression needs more than " + std::to_string(kMaxTemporaries) +
                     " intermediate values at once");
        free_.push_back(false);
        return {Ref::Kind::Temporary, static_cast<std::uint16_t>(free_.size() - 1)};
    }

    void release(const Ref& r) {
        if (r.kind == Ref::Kind::Temporary) free_[r.index] = true;
    }

    std::string_view text_;
    const Tree& tree_;
    Program& program_;
    std::vector<bool> free_;  // per temporary: whether it is free now
    std::vector<Pending> code_;
};

template <class T>
bool maps_zero_to_zero(const Program& p) {
    const T zeros[2] = {T(0), T(0)};
    const T* inputs[2] = {&zeros[0], &zeros[1]};
    T out = T(1);
    evaluate<T>(p, std::span<const T* const>(inputs, p.inputs), &out, 1);
    return out == T(0);  // false for NaN
}

}  // namespace

Checked<Program> compile(std::string_view text, Context context) {
    // The parser and code generator throw at the first problem; here it becomes a value.
    try {
        const Tree tree = parse(text, context);
        Program p;
        p.text = std::string(text);
        p.inputs = context == Context::Transform ? 1 : 2;
        Codegen(text, tree, p).run();
        p.zero_preserving = maps_zero_to_zero<float>(p) && maps_zero_to_zero<double>(p);
        return p;
    } catch (const Error& e) {
        return e;
    }
}

const Program& compiled(std::string_view text, Context context) {
    constexpr std::size_t kMaxCached = 64;
    thread_local std::map<std::pair<std::string, Context>, Program> cache;
    std::pair<std::string, Context> key(std::string(text), context);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
    Program program = compile(text, context).value();  // throws before anything is cached
    if (cache.size() >= kMaxCached) cache.clear();
    return cache.emplace(std::move(key), std::move(program)).first->second;
}

}  // namespace tra::kernels::expr
