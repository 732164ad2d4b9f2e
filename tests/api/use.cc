// A C++ program of libppsim's interface, built against an installed copy with `pkg-config
// --cflags --libs ppsim` (tests/cli/t_install.sh), with both installed headers: the handles in
// std::unique_ptr, the ops' columns in std::vector. Checks the interleaved schedule, p = 4,
// m = 8, v = 2 (makespan 28.5, bubble 3/19), its ops against its --dump-ops CSV, and a serving
// run; prints "ok", or each failed check and exits 1.
#include <ppsim/ppsim.h>
#include <ppsim/version.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

int failed = 0;

void check(bool ok, const std::string &what, const char *err = "")
{
	if (!ok) {
		std::printf("failed: %s: %s\n", what.c_str(), err);
		failed++;
	}
}

struct free_config {
	void operator()(pp_config *c) const { pp_config_free(c); }
};
struct free_run {
	void operator()(pp_run *r) const { pp_run_free(r); }
};
using config_ptr = std::unique_ptr<pp_config, free_config>;
using run_ptr = std::unique_ptr<pp_run, free_run>;

// The string *text a call handed out, returning status, freed with pp_string_free.
std::string take(int status, char **text)
{
	std::string s = status == PP_OK && *text != nullptr ? *text : "";
	pp_string_free(*text);
	*text = nullptr;
	return s;
}

} // namespace

int main()
{
	char err[512] = "";
	config_ptr c(pp_config_new());
	const char *settings[][2] = {{"schedule", "interleaved"}, {"p", "4"}, {"m", "8"}, {"v", "2"}};

	for (auto &kv : settings)
		check(pp_config_set(c.get(), kv[0], kv[1], err, sizeof err) == PP_OK, kv[0], err);
	check(pp_config_key("stages") != nullptr && std::string(pp_config_key("stages")) == "p",
	      "pp_config_key");
	pp_run *raw = nullptr;
	check(pp_simulate(c.get(), PP_KEEP_OP_TIMES, &raw, err, sizeof err) == PP_OK, "pp_simulate",
	      err);
	run_ptr r(raw);
	if (!r)
		return 1;
	double makespan = 0, bubble = 0;
	check(pp_run_figure(r.get(), "makespan", &makespan, err, sizeof err) == PP_OK &&
	              makespan == 28.5,
	      "makespan 28.5", err);
	check(pp_run_figure(r.get(), "bubble_ratio", &bubble, err, sizeof err) == PP_OK &&
	              std::fabs(bubble - 3.0 / 19) < 1e-12,
	      "bubble 3/19", err);

	// the ops' columns, each a vector of its own, against the op dump's rows
	size_t n = pp_run_op_count(r.get());
	std::vector<double> start(n), end(n);
	std::vector<int32_t> device(n), chunk(n), stage(n), mb(n);
	std::vector<uint8_t> kind(n);
	pp_ops cols = {};
	cols.n = n;
	cols.start = start.data();
	cols.end = end.data();
	cols.device = device.data();
	cols.chunk = chunk.data();
	cols.stage = stage.data();
	cols.microbatch = mb.data();
	cols.kind = kind.data();
	check(pp_run_ops(r.get(), 0, &cols, err, sizeof err) == PP_OK, "pp_run_ops", err);
	char *text = nullptr;
	std::istringstream csv(take(pp_run_ops_csv(r.get(), &text, err, sizeof err), &text));
	std::string line;
	std::getline(csv, line);
	check(line == "device,chunk,stage,op,microbatch,start,end", "the op dump's header",
	      line.c_str());
	for (size_t i = 0; std::getline(csv, line); i++) {
		std::ostringstream row;
		row << device[i] << ',' << chunk[i] << ',' << stage[i] << ','
		    << pp_op_kind_name(kind[i]) << ',' << mb[i] << ',' << start[i] << ',' << end[i];
		if (row.str() != line)
			check(false, "op " + std::to_string(i) + " is its row " + line, row.str().c_str());
	}
	std::string json = take(pp_run_report(r.get(), nullptr, &text, err, sizeof err), &text);
	check(json.find("\"makespan\":\t28.5,") != std::string::npos, "the JSON report", err);

	config_ptr s(pp_config_new());
	check(pp_config_set(s.get(), "num_requests", "8", err, sizeof err) == PP_OK &&
	              pp_serve(s.get(), 0, &raw, err, sizeof err) == PP_OK,
	      "pp_serve", err);
	run_ptr served(raw);
	std::vector<double> busy(static_cast<size_t>(pp_run_devices(served.get())));
	check(pp_run_device_figure(served.get(), "busy", busy.data(), busy.size(), err, sizeof err) ==
	                      static_cast<int>(busy.size()) &&
	              busy.size() == 4 && busy[0] > 0,
	      "a serving run's devices", err);

	pp_sweep *sweep = nullptr;
	const char *keys[] = {"p"}, *values[] = {"2,4"};
	makespan = 0;
	check(pp_sweep_run(s.get(), keys, values, 1, 1, 0, &sweep, err, sizeof err) == PP_E_INPUT,
	      "pp_sweep_run refuses a serving config", err);
	config_ptr t(pp_config_new());
	check(pp_sweep_run(t.get(), keys, values, 1, 1, 0, &sweep, err, sizeof err) == PP_OK &&
	              pp_sweep_points(sweep) == 2 &&
	              pp_sweep_figure(sweep, 1, "makespan", &makespan, err, sizeof err) == PP_OK &&
	              makespan == 33,
	      "pp_sweep_run", err);
	pp_sweep_free(sweep);

	int major = -1;
	check(std::string(pp_version(&major, nullptr, nullptr)) == PP_VERSION &&
	              major == PP_VERSION_MAJOR && pp_abi_version() == PP_ABI_VERSION,
	      "versions");
	if (failed)
		return 1;
	std::printf("ok\n");
	return 0;
}
