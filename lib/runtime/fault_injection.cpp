#include "runtime/fault_injection.hpp"

#include <csignal>
#include <cstdlib>
#include <regex>

#include "core/error.hpp"

namespace tra::runtime {

FaultInjection FaultInjection::from_environment() {
    FaultInjection f;
    const char* text = std::getenv("TRA_FAULT");
    if (!text || !*text) return f;
    static const std::regex form(R"((error|kill)@([0-9]+):([0-9]+|[a-z_]+))");
    std::cmatch m;
    if (!std::regex_match(text, m, form))
        throw Error(
            "TRA_FAULT='" + std::string(text) +
            "' is not ACTION@RANK:OPERATOR (ACTION error or kill, OPERATOR an id or op name)");
    Fault fault{m[1] == "kill" ? Action::Kill : Action::Error, std::stoi(m[2]), std::nullopt, ""};
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
    throw Error(
        "injected fault (TRA_FAULT) at operator #" + std::to_string(node_id) + " " + op_name, {},
        ErrorKind::Failed);
}

}  // namespace tra::runtime
