#include "workflow/kernel_field.hpp"

#include <regex>
#include <stdexcept>
#include <string>

#include "core/error.hpp"

namespace tra::workflow {

// {expr: "x * 2"} on a transform (variable x) or {expr: "a - b"} on a join (a, b): the kernel
// `expr` or `expr_join`. An error inside the text points at its column.
kernels::KernelCall parse_expression(const Field& text, KernelUse use) {
    if (use == KernelUse::Aggregate)
        text.fail(
            "an aggregate needs an associative, commutative kernel (add, mul, max, min); "
            "an expression is never assumed to be one");
    kernels::KernelParams params;
    params.expr = text.as_string();
    try {
        return kernels::KernelCall(use == KernelUse::Transform ? "expr" : "expr_join", params);
    } catch (const Error& e) {
        // The kernel names the column within the text, without a file.
        if (e.where().file.empty() && e.where().column > 0)
            throw Error(e.message(), text.where_in_text(e.where().column), e.kind());
        throw e.located(text.where());
    }
}

// "matmul", "scale(0.5)", {name: einsum, spec: "ij->ji", join: mul, agg: add}, or
// {expr: "..."}.
kernels::KernelCall parse_kernel(const Field& f, KernelUse use) {
    std::string name;
    kernels::KernelParams params;
    if (f.is_map() && f.has("expr") && !f.has("name")) {
        f.allow_only({"expr"});
        return parse_expression(f.at("expr"), use);
    }
    if (f.is_map()) {
        f.allow_only({"name", "factor", "spec", "join", "agg"});
        name = f.at("name").as_string();
        if (f.has("factor")) params.factor = f.at("factor").as_double();
        if (f.has("spec")) params.spec = f.at("spec").as_string();
        if (f.has("join")) params.join_op = f.at("join").as_string();
        if (f.has("agg")) params.agg_op = f.at("agg").as_string();
    } else {
        static const std::regex call(R"(\s*([A-Za-z_][A-Za-z0-9_]*)\s*(\(\s*([^)]*?)\s*\))?\s*)");
        std::smatch m;
        const std::string text = f.as_string();
        if (!std::regex_match(text, m, call))
            f.fail("expected a kernel such as matmul, scale(0.5) or {expr: \"x * 2\"}");
        name = m[1];
        if (m[2].matched) {
            try {
                std::size_t used = 0;
                params.factor = std::stod(m[3].str(), &used);
                if (used != m[3].str().size()) throw std::invalid_argument("trailing");
            } catch (const std::exception&) {
                f.fail("kernel parameter '" + m[3].str() + "' is not a number");
            }
        }
    }
    try {
        return kernels::KernelCall(name, params);
    } catch (const Error& e) {
        throw e.located(f.where());
    }
}

}  // namespace tra::workflow
