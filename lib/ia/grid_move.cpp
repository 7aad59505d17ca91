#include "ia/grid_move.hpp"

#include "core/error.hpp"

namespace tra::ia {

GridShape grid_shape(int sites) {
    if (sites < 1)
        throw Error("site count must be at least 1, got " + std::to_string(sites), {},
                    ErrorKind::Failed);
    GridShape g;
    for (int r = 1; static_cast<long long>(r) * r <= sites; ++r)
        if (sites % r == 0) g.rows = r;
    g.cols = sites / g.rows;
    return g;
}

std::optional<std::string> grid_move_problem(const Placement& target, std::size_t key_arity) {
    if (target.kind() != Placement::Kind::Grid)
        return "a grid node must produce a Grid placement, not " + target.str();
    for (std::size_t d : target.dims())
        if (d >= key_arity)
            return "grid position " + std::to_string(d) + " is outside the key of arity " +
                   std::to_string(key_arity);
    return std::nullopt;
}

int grid_copies(const Placement& target) {
    if (target.kind() != Placement::Kind::Grid) return 1;
    switch (target.replicate()) {
        case Placement::Replicate::AlongRow:
            return target.grid_cols();
        case Placement::Replicate::AlongColumn:
            return target.grid_rows();
        case Placement::Replicate::None:
            break;
    }
    return 1;
}

double paper_grid_cost(double floats, const Placement& target) {
    return floats * grid_copies(target);
}

}  // namespace tra::ia
