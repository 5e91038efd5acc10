// Formal properties of the NoC, checked by bounded model checking. Injection inputs are free except that
// they are legal: a stalled flit stays unchanged until accepted, a head names its own source, and last
// marks the flit its head's length says is the last. Ejection ready is free. Asserted: a stalled ejection
// flit keeps its payload until accepted, and no endpoint is offered a flit before a flit for it was injected.
// (A count of the flits in flight per endpoint would state the second property exactly, but proving a count
// is a pigeonhole argument for a SAT solver: 6 cycles took 17 s on the crossbar, 8 cycles over 400 s.)
// Each assert is reported by its line.
module chipgym_formal (
    input wire clk, input wire rst,
    input wire [7:0] in_valid, input wire [127:0] in_data, input wire [7:0] in_last, input wire [7:0] out_ready
);
  wire [7:0] in_ready, out_valid, out_last;
  wire [127:0] out_data;
  chipgym_noc dut (
      .clk(clk), .rst(rst), .in_valid(in_valid), .in_ready(in_ready), .in_data(in_data), .in_last(in_last),
      .out_valid(out_valid), .out_ready(out_ready), .out_data(out_data), .out_last(out_last));

  reg        init = 1'b1, was_rst;
  reg  [7:0] in_held, out_held;
  reg  [127:0] in_data_held, out_data_held;
  reg  [7:0] in_last_held, out_last_held;
  reg  [7:0] mid;                // the source is inside a packet: its next flit is not a head
  reg  [2:0] left [0:7];         // payload flits the source still has to send after the current one
  reg  [2:0] cur_dst [0:7];
  reg  [7:0] sent;               // a flit for the endpoint has been accepted before this cycle
  reg  [7:0] sent_now;           // a flit for the endpoint is accepted in this cycle
  integer s, e;

  always @* begin
    if (init) assume(rst);
    if (rst) assume(in_valid == 8'd0);
    sent_now = 8'd0;
    for (s = 0; s < 8; s = s + 1) begin
      if (!init && !rst && !was_rst && in_held[s])
        assume(in_valid[s] && in_data[16*s +: 16] == in_data_held[16*s +: 16] && in_last[s] == in_last_held[s]);
      if (in_valid[s] && !mid[s]) assume(in_data[16*s + 3 +: 3] == s && in_last[s] == (in_data[16*s + 6 +: 3] == 3'd0));
      if (in_valid[s] && mid[s]) assume(in_last[s] == (left[s] == 3'd1));
      if (in_valid[s] && in_ready[s])
        for (e = 0; e < 8; e = e + 1)
          if ((mid[s] ? cur_dst[s] : in_data[16*s +: 3]) == e) sent_now[e] = 1'b1;
    end
  end

  always @(posedge clk) begin
    init <= 1'b0;
    was_rst <= rst;
    in_held <= rst ? 8'd0 : in_valid & ~in_ready;
    out_held <= rst ? 8'd0 : out_valid & ~out_ready;
    in_data_held <= in_data;
    in_last_held <= in_last;
    out_data_held <= out_data;
    out_last_held <= out_last;
    for (s = 0; s < 8; s = s + 1) begin
      if (rst) begin
        mid[s] <= 1'b0;
        left[s] <= 3'd0;
        cur_dst[s] <= 3'd0;
      end else if (in_valid[s] && in_ready[s]) begin
        mid[s] <= !in_last[s];
        left[s] <= mid[s] ? left[s] - 3'd1 : in_data[16*s + 6 +: 3];
        if (!mid[s]) cur_dst[s] <= in_data[16*s +: 3];
      end
    end
    sent <= rst ? 8'd0 : sent | sent_now;
  end

  always @* begin
    if (!init && !rst && !was_rst)
      for (e = 0; e < 8; e = e + 1) begin
        if (out_held[e]) assert(out_valid[e] && out_data[16*e +: 16] == out_data_held[16*e +: 16] && out_last[e] == out_last_held[e]);  // a stalled ejection flit keeps its payload until accepted
        if (out_valid[e]) assert(sent[e] || sent_now[e]);  // no ejection flit before a flit for the endpoint was injected
      end
  end
endmodule
