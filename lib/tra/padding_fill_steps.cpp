#include "tra/padding_fill_steps.hpp"

namespace tra {

std::string fill_padding_steps(ProgramBuilder& builder, const std::string& name,
                               const std::string& input, const std::vector<PaddedDim>& dims,
                               double value, const StepSource& src) {
    std::string relation = input;
    int masks = 0;
    for (const PaddedDim& p : dims) {
        const Node& n = builder.node(builder.lookup(relation, src.step));
        if (p.dim >= n.type.rank() || p.extent >= n.frontier[p.dim] * n.type.bound[p.dim])
            continue;  // tiled to the extent: no padding here
        kernels::KernelParams params;
        params.spec = std::to_string(p.dim) + ":" + std::to_string(p.extent);
        params.factor = value;
        const std::string mask = name + ".mask" + (masks++ ? std::to_string(masks) : "");
        builder.add_transform(mask, relation, kernels::KernelCall("fill_padding", params), src);
        relation = mask;
    }
    return relation;
}

}  // namespace tra
