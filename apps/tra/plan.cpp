#include <filesystem>
#include <iostream>

#include "json_writer.hpp"
#include "kernels/blas_threads.hpp"
#include "plan_request.hpp"
#include "program_table.hpp"
#include "verbs.hpp"
#include "workflow/plan_file.hpp"

namespace tra::cli {

namespace {

struct PlanOptions {
    PlanFlags request;
    std::string format = "text";
    std::string output;
    std::string plans_dir;
};

void print_table(std::ostream& out, const optimizer::RankedPlans& r, const PlanFlags& req) {
    out << "workflow " << r.program->name << " on " << r.sites << " sites: " << r.plans.size()
        << " plan(s), cheapest first by the " << optimizer::cost_name(req.cost) << " model\n";
    const bool timed = req.cost == optimizer::CostModel::Time;
    if (timed) out << machine_line(r.profile) << "\n";
    if (r.program->repeat)
        out << "loop: each plan runs " << r.program->repeat->times
            << " times; its figures are one iteration's, with the carry that ends it\n";
    std::vector<std::vector<std::string>> rows = {{"rank", "name", "paper floats", "exact bytes",
                                                   "overhead bytes", "peak bytes/site", "flops"}};
    if (timed) rows[0].push_back("est. seconds");
    for (std::size_t i = 0; i < r.plans.size(); ++i) {
        const auto& t = r.plans[i].totals;
        char paper[32];
        std::snprintf(paper, sizeof paper, "%.0f", t.paper_floats);
        rows.push_back({std::to_string(i + 1), r.plans[i].name, paper,
                        std::to_string(t.payload_bytes) + " (" + human_bytes(t.payload_bytes) + ")",
                        std::to_string(t.overhead_bytes),
                        std::to_string(t.peak_bytes) + " (" + human_bytes(t.peak_bytes) + ")",
                        std::to_string(t.flops)});
        if (timed) {
            char seconds[32];
            std::snprintf(seconds, sizeof seconds, "%.3g", r.seconds.at(i));
            rows.back().push_back(seconds);
        }
    }
    print_columns(out, rows);
    for (const auto& d : r.dropped)
        out << "dropped " << d.name << ": needs " << d.peak_bytes << " bytes per site, have "
            << *req.memory_per_site << "\n";
}

void print_json(std::ostream& out, const optimizer::RankedPlans& r, const PlanFlags& req) {
    JsonWriter j(out);
    j.begin_object().field("workflow", req.workflow).field("sites", r.sites);
    j.field("cost", optimizer::cost_name(req.cost));
    write_machine_json(j, r.profile);
    j.key("plans").begin_array();
    for (std::size_t i = 0; i < r.plans.size(); ++i) {
        const auto& t = r.plans[i].totals;
        j.begin_object()
            .field("rank", i + 1)
            .field("name", r.plans[i].name)
            .field("paper_floats", t.paper_floats)
            .field("paper_floats_aggregated", t.paper_floats_aggregated)
            .field("exact_bytes", t.payload_bytes)
            .field("overhead_bytes", t.overhead_bytes)
            .field("peak_bytes_per_site", t.peak_bytes)
            .field("flops", t.flops)
            .field("estimated_seconds", r.seconds.at(i))
            .end_object();
    }
    j.end_array().key("dropped").begin_array();
    for (const auto& d : r.dropped)
        j.begin_object()
            .field("name", d.name)
            .field("peak_bytes_per_site", d.peak_bytes)
            .end_object();
    j.end_array().end_object();
}

// --plans-dir: one search, every listed plan as a file; a user (or a test) then runs each
// candidate without planning again. A failure stops at the file that failed: the files before
// it are complete (each is written whole under a temporary name, then renamed).
void save_listed_plans(const optimizer::RankedPlans& ranked, const PlanOptions& opt) {
    std::error_code ec;
    std::filesystem::create_directories(opt.plans_dir, ec);
    if (ec || !std::filesystem::is_directory(opt.plans_dir))
        throw Error("--plans-dir: cannot make the folder '" + opt.plans_dir + "'" +
                        (ec ? ": " + ec.message() : std::string()),
                    {}, ErrorKind::Failed);
    for (std::size_t i = 0; i < ranked.plans.size(); ++i) {
        const auto path =
            (std::filesystem::path(opt.plans_dir) / ("plan-" + std::to_string(i + 1) + ".yaml"))
                .string();
        workflow::save_plan_file(path, ranked.plans[i].plan, opt.request.workflow,
                                 ranked.plans[i].name, ranked_by(ranked, opt.request.cost));
    }
    if (opt.format != "json")
        std::cout << "wrote " << ranked.plans.size() << " plan file(s) to " << opt.plans_dir
                  << "/plan-RANK.yaml\n";
}

}  // namespace

void add_cost_options(CLI::App* cmd, optimizer::CostModel& cost, TimeFlags& time) {
    using optimizer::CostModel;
    cmd->add_option("--cost", cost,
                    "Rank plans (and count --plan N) by the time (default: predicted seconds "
                    "from the machine profile), exact (bytes) or paper (floats) model")
        ->transform(CLI::CheckedTransformer(std::map<std::string, CostModel>{
            {"exact", CostModel::Exact}, {"paper", CostModel::Paper}, {"time", CostModel::Time}}));
    cmd->add_option("--machine", time.machine,
                    "Machine profile for the time model (tra calibrate -o FILE); default: "
                    "the file TRA_MACHINE names, else the built-in default");
    cmd->add_option("--flop-rate", time.flop_rate,
                    "Time model: flops per second of one site, for every kernel, thin gemms "
                    "too (overrides the machine profile's rates)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--bandwidth", time.bandwidth,
                    "Time model: bytes per second between two sites, on one host or across "
                    "hosts (overrides the machine profile's)")
        ->check(CLI::PositiveNumber);
}

void add_plan_request_options(CLI::App* cmd, PlanFlags& req) {
    cmd->add_option("--sites", req.sites,
                    "Number of sites (MPI ranks); default: the workflow's sites:")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--plan", req.plan,
                    "A rank (1 = cheapest) or pins NODE=strategy[,NODE=strategy...], e.g. C=cmm");
    cmd->add_option("--memory-per-site", req.memory_per_site,
                    "Drop plans whose predicted peak bytes per site exceed this");
    cmd->add_option("--input-placement", req.input_placements,
                    "Fix where an input starts, e.g. A=Part[1] (repeatable)");
    add_cost_options(cmd, req.cost, req.time);
    add_max_tuples_option(cmd, req.max_tuples);
    cmd->add_option("--ranks-per-host", req.time.ranks_per_host,
                    "Time model: sites per host, consecutive (default: all on one host)")
        ->check(CLI::PositiveNumber);
}

void add_plan(CLI::App& app, int& exit_code) {
    auto* cmd = app.add_subcommand(
        "plan",
        "List the candidate distributed (IA) plans of a workflow with their predicted "
        "transfer, peak memory per site and flops, cheapest first");
    auto opt = std::make_shared<PlanOptions>();
    cmd->add_option("workflow", opt->request.workflow, "Workflow YAML file")->required();
    add_plan_request_options(cmd, opt->request);
    cmd->add_option("--top", opt->request.top, "How many plans to list (default 10)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--format", opt->format, "text or json")
        ->check(CLI::IsMember({"text", "json"}));
    cmd->add_option("-o,--output", opt->output,
                    "Write the first plan (or the one --plan picks) as a plan file");
    cmd->add_option("--plans-dir", opt->plans_dir,
                    "Write every listed plan as a plan file DIR/plan-RANK.yaml (made if missing)");
    cmd->callback([opt, &exit_code] {
        // Planning never computes a tile: no BLAS thread pool competing with runs beside it.
        kernels::set_blas_threads(1);
        const optimizer::RankedPlans ranked = plan_workflow(opt->request);
        if (opt->format == "json")
            print_json(std::cout, ranked, opt->request);
        else
            print_table(std::cout, ranked, opt->request);
        if (!opt->output.empty()) {
            const auto& chosen = choose_plan(ranked, opt->request);
            workflow::save_plan_file(opt->output, chosen.plan, opt->request.workflow, chosen.name,
                                     ranked_by(ranked, opt->request.cost));
            if (opt->format != "json")
                std::cout << "wrote plan " << chosen.name << " to " << opt->output << "\n";
        }
        if (!opt->plans_dir.empty()) save_listed_plans(ranked, *opt);
        exit_code = 0;
    });
}

}  // namespace tra::cli
