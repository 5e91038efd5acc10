// Iterative multiplier: the low 32 bits of a * b, 11 bits of b a step, one step a cycle. A MUL holds its
// execute stage for 3 cycles (more would break the progress property of dv/formal.sv on a five-stage core);
// the 3rd step is added combinationally, so the product is ready in that cycle.
module chipgym_mul_iterative (
    input  wire        clk,
    input  wire        rst,
    input  wire        mul,      // a MUL is in the execute stage
    input  wire        go,       // and its operands are valid: it takes a step (after the last, it leaves)
    input  wire [31:0] a,
    input  wire [31:0] b,
    output wire [31:0] product,  // a * b in the cycle of the last step
    output wire        busy      // the MUL must stay in the execute stage
);
  localparam LAST = 2'd2;        // steps 0, 1, 2 cover b's 33 >= 32 bits
  reg  [1:0]  n;                 // steps taken
  reg  [31:0] sum, x, y;         // the partial product; a and b shifted by the steps taken
  wire        first = n == 2'd0;
  wire [31:0] xs = first ? a : x;
  wire [31:0] ys = first ? b : y;
  assign product = (first ? 32'd0 : sum) + xs * {21'd0, ys[10:0]};
  assign busy = mul && n != LAST;
  always @(posedge clk) begin
    if (rst) n <= 2'd0;
    else if (mul && go) begin
      n <= busy ? n + 2'd1 : 2'd0;
      sum <= product;
      x <= xs << 11;
      y <= ys >> 11;
    end
  end
endmodule
