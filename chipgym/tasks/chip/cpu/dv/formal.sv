// Formal properties of the CPU memory protocol and termination, checked by bounded model
// checking (yosys-smtbmc + z3). Memory inputs are free except that responses only come for
// accepted requests, at least one cycle later. When the free constant input `fair` is high,
// memories are always ready and answer exactly one cycle after acceptance: then the core must
// retire an instruction or stop at least every PROGRESS cycles (so every run ends before the
// watchdog). Each assert is reported by its line.
module chipgym_formal (
    input wire clk, input wire rst,
    input wire imem_req_ready, input wire imem_resp_valid, input wire [31:0] imem_resp_rdata,
    input wire dmem_req_ready, input wire dmem_resp_valid, input wire [31:0] dmem_resp_rdata,
    input wire fair
);
  localparam PROGRESS = 8;
  wire        imem_req_valid, dmem_req_valid, dmem_req_we, halted;
  wire [31:0] imem_req_addr, dmem_req_addr, dmem_req_wdata, cnt_cycles, cnt_retired, cnt_stalls;
  wire [1:0]  fault;
  chipgym_cpu dut (
      .clk(clk), .rst(rst),
      .imem_req_valid(imem_req_valid), .imem_req_ready(imem_req_ready), .imem_req_addr(imem_req_addr),
      .imem_resp_valid(imem_resp_valid), .imem_resp_rdata(imem_resp_rdata),
      .dmem_req_valid(dmem_req_valid), .dmem_req_ready(dmem_req_ready), .dmem_req_addr(dmem_req_addr),
      .dmem_req_we(dmem_req_we), .dmem_req_wdata(dmem_req_wdata),
      .dmem_resp_valid(dmem_resp_valid), .dmem_resp_rdata(dmem_resp_rdata),
      .halted(halted), .fault(fault),
      .cnt_cycles(cnt_cycles), .cnt_retired(cnt_retired), .cnt_stalls(cnt_stalls));

  reg        init = 1'b1, was_rst;
  reg [3:0]  i_out = 4'd0, d_out = 4'd0;  // outstanding requests per port
  reg        i_held, d_held, d_we_held, was_done;
  reg [31:0] i_addr_held, d_addr_held, d_wdata_held;
  reg [1:0]  fault_held;
  reg        fair_held, i_acc, d_acc;
  reg [31:0] retired_before;
  reg [3:0]  idle = 4'd0;  // cycles since the last retirement
  wire       done = halted || fault != 2'd0;

  always @* begin
    if (init) assume(rst);
    assume(!imem_resp_valid || i_out != 4'd0);
    assume(!dmem_resp_valid || d_out != 4'd0);
    if (!init) assume(fair == fair_held);
    if (fair) assume(imem_req_ready && dmem_req_ready && imem_resp_valid == i_acc && dmem_resp_valid == d_acc);
  end

  always @(posedge clk) begin
    init <= 1'b0;
    was_rst <= rst;
    i_out <= rst ? 4'd0 : i_out + (imem_req_valid && imem_req_ready) - imem_resp_valid;
    d_out <= rst ? 4'd0 : d_out + (dmem_req_valid && dmem_req_ready) - dmem_resp_valid;
    i_held <= !rst && imem_req_valid && !imem_req_ready;
    d_held <= !rst && dmem_req_valid && !dmem_req_ready;
    i_addr_held <= imem_req_addr;
    d_addr_held <= dmem_req_addr;
    d_we_held <= dmem_req_we;
    d_wdata_held <= dmem_req_wdata;
    was_done <= !rst && done;
    fault_held <= fault;
    fair_held <= fair;
    i_acc <= !rst && imem_req_valid && imem_req_ready;
    d_acc <= !rst && dmem_req_valid && dmem_req_ready;
    retired_before <= cnt_retired;
    idle <= (rst || done || cnt_retired != retired_before) ? 4'd0 : idle + 4'd1;
  end

  always @* begin
    if (!init && !rst && !was_rst) begin
      if (i_held) assert(imem_req_valid && imem_req_addr == i_addr_held);  // stalled imem request held until accepted
      if (d_held) assert(dmem_req_valid && dmem_req_addr == d_addr_held && dmem_req_we == d_we_held);  // stalled dmem address held
      if (d_held && d_we_held) assert(dmem_req_wdata == d_wdata_held);  // stalled dmem write data held
      if (imem_req_valid) assert(imem_req_addr[1:0] == 2'd0 && imem_req_addr < 32'd16384);  // imem requests aligned and in range
      if (dmem_req_valid) assert(dmem_req_addr[1:0] == 2'd0 && dmem_req_addr < 32'd16384);  // dmem requests aligned and in range
      if (was_done) assert(done && fault == fault_held);  // halted and fault are sticky
      if (done) assert(!imem_req_valid && !dmem_req_valid);  // no requests after halt or fault
      if (fair) assert(idle < PROGRESS);  // with responsive memories, progress every PROGRESS cycles
    end
  end
endmodule
