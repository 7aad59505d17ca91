// The kernels of element-wise expressions (expression.hpp): `expr` maps one tile by an
// expression in x, `expr_join` combines two tiles of one shape by an expression in a and b.
//
// A step's text is compiled once per thread (expr::compiled) and looked up for each tile after.
#include "kernels/cpu_kernels.hpp"
#include "kernels/expression.hpp"
#include "kernels/parallel_for.hpp"

namespace tra::kernels::cpu {

namespace {

// Elements per thread below which a call runs on one thread (a fork costs microseconds; an
// expression costs at least an element-wise op per element, usually several).
constexpr std::int64_t kExpressionGrainElements = 1 << 14;

const expr::Program& compiled(const std::string& name, const KernelParams& p,
                              expr::Context context) {
    if (p.expr.empty()) {
        const char* example = context == expr::Context::Transform ? "x * 2" : "a - b";
        throw Error(name + ": the expression is missing, e.g. \"" + example + "\"");
    }
    return expr::compiled(p.expr, context);
}

Checked<Shape> shape_of(const std::string& name, std::span<const Shape> ops, int arity) {
    if (auto problem = operand_count_problem(name, ops.size(), static_cast<std::size_t>(arity)))
        return *problem;
    if (arity == 2 && ops[0] != ops[1])
        return Error(name + ": operand shapes differ: " + shapes_str(ops, " vs "));
    return ops[0];
}

Kernel make_expression_kernel(const std::string& name, expr::Context context,
                              const std::string& summary) {
    const int arity = context == expr::Context::Transform ? 1 : 2;
    Kernel k;
    k.name = name;
    k.arity = arity;
    k.summary = summary;
    k.properties.elementwise = true;
    k.operand_count = [name, context, arity](const KernelParams& p) {
        compiled(name, p, context);  // throws the problem
        return arity;
    };
    // Only what holds for every expression: element-wise, and f(0) = 0 where evaluating the
    // program on zeros says so. Never associative or commutative, whatever the text looks like.
    k.properties_of = [context](const KernelParams& p) {
        KernelProperties props;
        props.elementwise = true;
        const Checked<expr::Program> program = expr::compile(p.expr, context);
        props.zero_preserving = program.ok() && program->zero_preserving;
        return props;
    };
    k.describe = [name](const KernelParams& p) { return name + "(" + p.expr + ")"; };
    k.output_shape = [name, arity](std::span<const Shape> ops, const KernelParams&) {
        return shape_of(name, ops, arity);
    };
    k.apply = [name, context, arity](std::span<const Tile* const> ops, const KernelParams& p,
                                     const TilePosition&) {
        const expr::Program& program = compiled(name, p, context);
        DType d = common_dtype(name, ops);
        // Every element is written below, by the thread that will read it next.
        Tile out = Tile::uninitialized(d, shape_of(name, shapes_of(ops), arity).value());
        visit_dtype(d, [&](auto t) {
            using T = decltype(t);
            const T* in[2] = {ops[0]->data<T>(), arity == 2 ? ops[1]->data<T>() : nullptr};
            T* c = out.data<T>();
            parallel_for(
                out.elements(), kExpressionGrainElements,
                [&](std::int64_t begin, std::int64_t end) {
                    const T* chunk[2] = {in[0] + begin, arity == 2 ? in[1] + begin : nullptr};
                    expr::evaluate<T>(program, std::span<const T* const>(chunk, program.inputs),
                                      c + begin, end - begin);
                });
        });
        return out;
    };
    return k;
}

}  // namespace

std::vector<Kernel> expression_kernels() {
    std::vector<Kernel> out;
    out.push_back(make_expression_kernel(
        "expr", expr::Context::Transform,
        "element-wise expression in x, params.expr (\"x * rsqrt(x * x + 1e-6)\")"));
    out.push_back(make_expression_kernel(
        "expr_join", expr::Context::Join,
        "element-wise expression in a and b of two tiles of one shape, params.expr"));
    return out;
}

}  // namespace tra::kernels::cpu
