#include "runtime/fault_injection.hpp"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <regex>
#include <thread>

#include "core/error.hpp"

namespace tra::runtime {

FaultInjection FaultInjection::from_environment() {
    FaultInjection f;
    const char* text = std::getenv("TRA_FAULT");
    if (!text || !*text) return f;
    static const std::regex form(R"((error|kill|hang)@([0-9]+):([0-9]+|[a-z_]+))");
    std::cmatch m;
    if (!std::regex_match(text, m, form))
        throw Error("TRA_FAULT='" + std::string(text) +
                    "' is not ACTION@RANK:OPERATOR (ACTION error, kill or hang, OPERATOR an id or "
                    "op name)");
    const Action action = m[1] == "kill"   ? Action::Kill
                          : m[1] == "hang" ? Action::Hang
                                           : Action::Error;
    Fault fault{action, std::stoi(m[2]), std::nullopt, ""};
    const std::string where = m[3];
    if (where.find_first_not_of("0123456789") == std::string::npos)
        fault.node_id = std::stoll(where);
    else
        fault.op_name = where;
    f.fault_ = fault;
    return f;
}

void FaultInjection::reach(int rank, std::int64_t node_id, const std::string& op_name) {
    if (!fault_ || fault_->rank != rank) return;
    if (fault_->node_id ? *fault_->node_id != node_id : fault_->op_name != op_name) return;
    const Action action = fault_->action;
    fault_.reset();
    if (action == Action::Kill) std::raise(SIGKILL);
    // Never returns: only another rank's watchdog (or the launcher) ends this one.
    while (action == Action::Hang) std::this_thread::sleep_for(std::chrono::seconds(1));
    throw Error(
        "injected fault (TRA_FAULT) at operator #" + std::to_string(node_id) + " " + op_name, {},
        ErrorKind::Failed);
}

}  // namespace tra::runtime
