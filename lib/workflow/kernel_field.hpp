#pragma once
// The `kernel` field of a step (docs/workflow-format.md, "Kernels"): a name ("matmul"), a call
// ("scale(0.5)"), a map ({name: einsum, spec: ...}) or an expression ({expr: "x * 2"}). Errors
// are located at the field, inside an expression at its column. Internal to lib/workflow.
#include "kernels/kernel.hpp"
#include "workflow/yaml_fields.hpp"

namespace tra::workflow {

// Where a kernel is used: which expression variables it may read, and whether it aggregates.
enum class KernelUse { Transform, Join, Aggregate };

// {expr: "x * 2"} on a transform (variable x) or {expr: "a - b"} on a join (a, b): the kernel
// `expr` or `expr_join`. An error inside the text points at its column.
kernels::KernelCall parse_expression(const Field& text, KernelUse use);

// "matmul", "scale(0.5)", {name: einsum, spec: "ij->ji", join: mul, agg: add}, or
// {expr: "..."}.
kernels::KernelCall parse_kernel(const Field& f, KernelUse use);

}  // namespace tra::workflow
