#include "workflow/generator_field.hpp"

namespace tra::workflow {

storage::GeneratorSpec parse_generator(const Field& f) {
    f.allow_only({"uniform", "integers", "constant", "arange", "seed", "density"});
    storage::GeneratorSpec g;
    if (f.has("seed")) {
        const auto seed = f.at("seed").as_int();
        if (seed < 0) f.at("seed").fail("seed must be non-negative");
        g.seed = static_cast<std::uint64_t>(seed);
    }
    using Kind = storage::GeneratorSpec::Kind;
    const std::pair<const char*, Kind> kinds[] = {
        {"uniform", Kind::Uniform}, {"integers", Kind::Integers}, {"arange", Kind::Arange}};
    int found = 0;
    for (auto [key, kind] : kinds)
        if (f.has(key)) {
            const Field range = f.at(key);
            const auto values = range.elements();
            if (values.size() != 2) range.fail(std::string(key) + " takes two numbers");
            g.kind = kind;
            g.lo = values[0].as_double();
            g.hi = values[1].as_double();
            if (kind != Kind::Arange && g.lo > g.hi) range.fail("the range is empty: lo > hi");
            ++found;
        }
    if (f.has("constant")) {
        g.kind = Kind::Constant;
        g.lo = f.at("constant").as_double();
        ++found;
    }
    if (found != 1) f.fail("generate needs exactly one of uniform, integers, constant, arange");
    if (f.has("density")) {
        g.density = f.at("density").as_double();
        if (!(g.density > 0.0 && g.density <= 1.0))
            f.at("density").fail("density is the fraction of tiles present, in (0, 1]");
    }
    return g;
}

}  // namespace tra::workflow
