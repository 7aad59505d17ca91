// tra: declarative distributed tensor computation. See README.md and docs/.
#include <iostream>

#include "core/error.hpp"
#include "kernels/blas_threads.hpp"
#include "run_provenance.hpp"
#include "verbs.hpp"
#include "version.hpp"

int main(int argc, char** argv) {
    tra::kernels::limit_blas_spin_wait();  // before MPI or anything else starts a thread
    CLI::App app{
        "tra: tensor relational algebra workflows, planned and run on tiled HDF5 tensors.\n"
        "Exit codes: 0 ok, 1 result differs or run failed, 2 bad input."};
    app.require_subcommand(1);
    app.set_version_flag("--version", tra::cli::version_text);
    int exit_code = 0;
    tra::cli::remember_command_line(argc, argv);
    tra::cli::add_validate(app, exit_code);
    tra::cli::add_gen(app, exit_code);
    tra::cli::add_plan(app, exit_code);
    tra::cli::add_explain(app, exit_code);
    tra::cli::add_run(app, exit_code);
    tra::cli::add_diff(app, exit_code);
    tra::cli::add_kernels(app, exit_code);
    tra::cli::add_calibrate(app, exit_code);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? 0 : 2;
    } catch (const tra::Error& e) {
        std::cerr << "tra: error: " << e.what() << "\n";
        return e.exit_code();
    } catch (const std::exception& e) {
        std::cerr << "tra: error: " << e.what() << "\n";
        return 1;
    }
    return exit_code;
}
