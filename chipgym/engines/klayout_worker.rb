# chipgym's KLayout DRC worker. It runs inside the sandbox as pid 1 of its own pid namespace:
#   klayout -b -r klayout_worker.rb -rd results_fd=N
#
# Control, one JSON line each way (stdin from chipgym, replies on the original stdout):
#   {"op": "job", "kind": "deck"|"summary", "deck": PATH, "timeout": S, "max_markers": M}
#   {"op": "layout", "path": PATH, "nonce": HEX}   -> nothing, or {"timeout": HEX} / {"ended": HEX, "how": TEXT}
#   {"op": "kill"}                                  -> {"killed": true}
#   {"op": "end"}                                   -> {"end": true, "clean": BOOL}
# Results go from the deck's own process straight to chipgym on fd N, one JSON line per layout:
#   {"nonce": HEX, "status": ..., "error": ..., "categories": {NAME: {"count": C, "markers": [...]}}, "seconds": S}
#
# This process never reads a deck, a layout or a result: each deck runs in a fresh fork of it, so what one
# deck saw or computed is never in the memory the next deck is forked from. Before it says it is ready it
# runs one deck of its own (WARM_UP, on a layout it draws itself), so that each fork starts with KLayout's
# and Ruby's lazily built state in place instead of building it again on its first layout. As pid 1 with
# every signal ignored it cannot be killed or stopped from inside the sandbox, so it enforces the per-layout
# time limit.
require 'json'
require 'fiddle'
require 'fileutils'

module ChipgymWorker
  REPORT = "/tmp/report.lyrdb"
  LOG = "/tmp/deck.log"
  LIBC = Fiddle.dlopen(nil)
  SIG_IGN = 1
  KEEP_SIGNALS = [9, 17, 19, 26]  # KILL, CHLD, STOP (cannot be changed) and VTALRM (Ruby's thread timer)
  REAP_SECONDS = 1.0  # the longest the processes a deck left behind may take to die
  WARM_UP_LAYOUT = "/tmp/warm-up.gds"
  WARM_UP = <<~DECK
    source($input)
    report("warm-up", $output)
    a = input(1, 0)
    b = input(2, 0)
    a.width(0.1).output("width", "width")
    a.space(0.1, projection).output("space", "space")
    a.enclosing(b, 0.1).output("enclosing", "enclosing")
    a.separation(b, 0.1).output("separation", "separation")
    (a & b).output("and", "and")
    (a - b.sized(0.05)).with_area(0, 1).output("area", "area")
    a.edges.with_length(0, 1).output("edges", "edges")
  DECK

  # The scope a deck runs in: the engine's, as under `klayout -b -r`, and none of the worker's local variables
  # (a string instance_eval sees its caller's: a deck's bare `source` was the worker's local, nil).
  module DeckScope
    def _chipgym_deck_scope
      binding
    end
  end

  module_function

  def libc(name, args, ret = Fiddle::TYPE_INT)
    Fiddle::Function.new(LIBC[name], args, ret)
  end

  # A non-dumpable process cannot be ptraced or have its /proc files opened by its same-uid children.
  def make_undumpable
    libc("prctl", [Fiddle::TYPE_INT] + [Fiddle::TYPE_LONG] * 4).call(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE = 4
  end

  # Pid 1 of a namespace receives, from inside it, only signals it has a handler for: with none, no deck
  # can kill or stop it (KLayout's own crash handlers for SEGV, ABRT, ... included).
  def ignore_signals
    signal = libc("signal", [Fiddle::TYPE_INT, Fiddle::TYPE_VOIDP], Fiddle::TYPE_VOIDP)
    (1..31).each { |number| signal.call(number, SIG_IGN) unless KEEP_SIGNALS.include?(number) }
  end

  def now
    Process.clock_gettime(Process::CLOCK_MONOTONIC)
  end

  def failure(status, error)
    { "status" => status, "error" => error, "categories" => {} }
  end

  def error_text(e)
    where = (e.backtrace || []).find { |l| l.start_with?("deck.drc:") }
    where = where ? " (#{where.split(':in ').first})" : ""
    "#{e.class}: #{e.message}#{where}"
  end

  def coords(points, dbu)
    points.flat_map { |p| [(p.x / dbu).round, (p.y / dbu).round] }
  end

  # A value as a report file holds it: written as text and parsed back (which, for one, puts the lesser
  # edge of a symmetric edge pair first), so markers read from memory are those read from the file.
  def as_saved(value)
    RBA::RdbItemValue.from_s(value.to_s)
  end

  def marker(value, dbu)
    if value.is_polygon?
      poly = value.polygon
      hull = []
      poly.each_point_hull { |p| hull << p }
      holes = (0...poly.holes).map { |h| pts = []; poly.each_point_hole(h) { |p| pts << p }; coords(pts, dbu) }
      ["polygon", coords(hull, dbu)] + holes
    elsif value.is_edge_pair?
      ep = value.edge_pair
      ["edge_pair", coords([ep.first.p1, ep.first.p2, ep.second.p1, ep.second.p2], dbu)]
    elsif value.is_edge?
      ["edge", coords([value.edge.p1, value.edge.p2], dbu)]
    elsif value.is_box?
      ["box", coords([value.box.p1, value.box.p2], dbu)]
    elsif value.is_path?
      ["path", coords(value.path.each_point.to_a, dbu)]
    else
      ["text", value.to_s]
    end
  end

  def read_report(rdb, dbu, max_markers)
    categories = {}
    rdb.each_category do |cat|
      count = 0
      markers = []
      rdb.each_item_per_category(cat.rdb_id) do |item|
        count += 1
        item.each_value { |v| markers << marker(as_saved(v), dbu) } if markers.size < max_markers
      end
      # Two outputs to one category name make two categories of that name: count them as one.
      merged = categories[cat.name] ||= { "count" => 0, "markers" => [] }
      merged["count"] += count
      merged["markers"].concat(markers.first(max_markers - merged["markers"].size))
    end
    { "status" => "ok", "error" => "", "categories" => categories }
  end

  # The report database of a deck that reports to $output, taken from memory: _finish would write it to
  # REPORT to be parsed back (together about a third of a small deck's time). _finish then writes nothing.
  def report_in_memory(engine)
    file = engine.instance_variable_get(:@output_rdb_file)
    return nil unless file.is_a?(String) && engine._make_path(file) == REPORT
    engine.instance_variable_set(:@output_rdb_file, nil)
    engine.instance_variable_get(:@output_rdb)
  end

  # Runs the deck on one layout, as `klayout -b -r deck.drc -rd input=LAYOUT -rd output=REPORT` would.
  def run_deck(deck, layout, max_markers)
    File.delete(REPORT) if File.exist?(REPORT)
    $input = layout
    $output = REPORT
    engine = DRC::DRCEngine.new
    dbu = 0.001
    begin
      engine._start("chipgym")
      engine.extend(DeckScope)
      eval(deck, engine._chipgym_deck_scope, "deck.drc", 1)
      source = engine.instance_variable_get(:@def_source)
      dbu = source.layout.dbu if source
      rdb = report_in_memory(engine)
      engine._finish
    rescue SyntaxError, ScriptError => e
      return failure("compile", error_text(e))
    rescue Exception => e
      return failure("runtime", error_text(e))
    end
    unless rdb
      return failure("no_report", "the deck wrote no report to $output (call report(title, $output))") unless File.exist?(REPORT)
      rdb = RBA::ReportDatabase.new("")
      rdb.load(REPORT)
    end
    read_report(rdb, dbu, max_markers)
  rescue Exception => e
    failure("runtime", "reading the report failed: #{error_text(e)}")
  end

  # Every polygon of a layout, flattened, per "layer/datatype", in database units; at most max_shapes of
  # them (an array of 32767 x 32767 instances stops there rather than being expanded).
  def summarise(path, max_shapes)
    layout = RBA::Layout.new
    layout.read(path)
    tops = layout.top_cells
    return failure("runtime", "gds: #{tops.size} top cells; a test layout has one") if tops.size != 1
    layers = {}
    count = 0
    layout.layer_indexes.each do |index|
      info = layout.get_info(index)
      polygons = layers["#{info.layer}/#{info.datatype}"] = []
      iterator = tops[0].begin_shapes_rec(index)
      until iterator.at_end?
        shape = iterator.shape
        if shape.is_box? || shape.is_polygon? || shape.is_path? || shape.is_simple_polygon?
          count += 1
          return failure("runtime", "gds: more than #{max_shapes} shapes once flattened") if count > max_shapes
          polygon = shape.polygon.transformed(iterator.trans)
          points = []
          polygon.each_point_hull { |p| points << p.x << p.y }
          polygons << points
        end
        iterator.next
      end
    end
    { "status" => "ok", "error" => "", "dbu" => layout.dbu, "layers" => layers }
  rescue Exception => e
    failure("runtime", "gds: KLayout cannot read it (#{e.class}: #{e.message[0, 300]})")
  end

  # Kills every process in the sandbox but this one, until none is left (reaped, they are out of /proc);
  # true when none is, within REAP_SECONDS.
  def kill_others
    deadline = now + REAP_SECONDS
    loop do
      others = Dir.children("/proc").grep(/\A\d+\z/).map(&:to_i) - [Process.pid]
      return true if others.empty?
      return false if now > deadline
      Process.kill(:KILL, -1) rescue nil
      loop { Process.wait(-1, Process::WNOHANG) or break } rescue nil
      sleep 0.0002
    end
  end

  # Kills the child and everything it started, and closes its pipes.
  def discard(child)
    alone = kill_others
    [child.job, child.done].each { |io| io.close rescue nil } if child
    alone
  end

  # Empties /tmp (a deck may have filled it, locked its folders or changed its mode); true when it is as new.
  def wipe_tmp(mode)
    File.chmod(mode, "/tmp")
    Dir.children("/tmp").each do |name|
      path = "/tmp/#{name}"
      FileUtils.chmod_R("u+rwx", path, force: true) if File.directory?(path) && !File.symlink?(path)
      FileUtils.rm_rf(path)
    end
    Dir.children("/tmp").empty? && (File.stat("/tmp").mode & 0o7777) == mode
  rescue SystemCallError
    false
  end

  # How the child ended, once it has (it closed its done pipe: it is exiting, or it closed the pipe itself).
  def how_it_ended(pid)
    status = nil
    100.times { _, status = Process.wait2(pid, Process::WNOHANG); break if status; sleep 0.01 }
    return "ended" unless status
    status.signaled? ? "was killed by signal #{status.termsig}" : "exited with status #{status.exitstatus}"
  rescue SystemCallError
    "ended"
  end

  Child = Struct.new(:pid, :job, :done, :started)

  # A fresh fork that runs one job: its header, then one layout per line on its own pipe. It writes each
  # result to chipgym on `results` and one byte to this process on its `done` pipe.
  def fork_child(proto, results)
    job_reader, job_writer = IO.pipe
    done_reader, done_writer = IO.pipe
    pid = fork do
      [job_writer, done_reader, proto].each(&:close)
      STDIN.reopen(File::NULL)
      STDOUT.reopen(LOG, "w")
      STDERR.reopen(STDOUT)
      File.write("/proc/self/oom_score_adj", "1000") rescue nil  # the sandbox's OOM killer takes the deck first
      # KLayout's _finish forces two full garbage collections; this process is discarded after the deck.
      GC.singleton_class.send(:define_method, :start) { |*_args, **_kw| nil }
      header = JSON.parse(job_reader.gets)
      # UTF-8, as `klayout -b -r` reads a deck, whatever the (cleared) locale
      deck = header["kind"] == "deck" ? File.read(header["deck"], encoding: "UTF-8") : nil
      while (line = job_reader.gets)
        layout = JSON.parse(line)
        start = now
        result = deck ? run_deck(deck, layout["path"], header["max_markers"]) : summarise(layout["path"], header["max_markers"])
        results.write(JSON.generate(result.merge("nonce" => layout["nonce"], "seconds" => now - start)) + "\n")
        done_writer.write(".")
      end
      exit!(0)
    end
    [job_reader, done_writer].each(&:close)
    Child.new(pid, job_writer, done_reader, false)
  end

  # Runs WARM_UP once on a layout drawn here (a box on 1/0 beside one on 2/0), then leaves /tmp as it was.
  def warm_up(tmp_mode)
    layout = RBA::Layout.new
    layout.dbu = 0.001
    top = layout.create_cell("TOP")
    top.shapes(layout.layer(1, 0)).insert(RBA::Box.new(0, 0, 80, 2000))
    top.shapes(layout.layer(2, 0)).insert(RBA::Box.new(40, 0, 1000, 1000))
    layout.write(WARM_UP_LAYOUT)
    run_deck(WARM_UP, WARM_UP_LAYOUT, 10)
    $input = $output = nil
    wipe_tmp(tmp_mode)
  end

  def serve
    proto = STDOUT.dup
    proto.sync = true
    STDOUT.reopen(File::NULL)
    results = IO.for_fd(Integer($results_fd), "w", autoclose: false)
    results.sync = true
    make_undumpable
    ignore_signals
    tmp_mode = File.stat("/tmp").mode & 0o7777
    warm_up(tmp_mode)
    proto.puts(JSON.generate({ "ready" => true, "klayout" => RBA::Application.instance.version }))
    child = fork_child(proto, results)
    header = nil
    current = nil  # the nonce of the layout the child is on
    deadline = nil
    loop do
      readers = child ? [STDIN, child.done] : [STDIN]
      ready = IO.select(readers, nil, nil, deadline && [deadline - now, 0].max)
      if ready.nil?
        discard(child)
        proto.puts(JSON.generate({ "timeout" => current }))
        child = current = deadline = nil
        next
      end
      if child && ready[0].include?(child.done)
        if child.done.read_nonblock(4096, exception: false).nil?
          how = how_it_ended(child.pid)
          discard(child)
          proto.puts(JSON.generate({ "ended" => current, "how" => how })) if current
          child = current = deadline = nil
        else
          current = deadline = nil
        end
        next
      end
      line = STDIN.gets or break
      message = JSON.parse(line)
      case message["op"]
      when "job"
        header = message
      when "layout"
        child ||= fork_child(proto, results)
        begin
          child.job.puts(JSON.generate(header)) unless child.started
          child.job.puts(JSON.generate({ "path" => message["path"], "nonce" => message["nonce"] }))
        rescue SystemCallError
          nil  # the child is gone: its done pipe says so
        end
        child.started = true
        current = message["nonce"]
        deadline = now + header["timeout"]
      when "kill"
        discard(child)
        child = current = deadline = nil
        proto.puts(JSON.generate({ "killed" => true }))
      when "end"
        alone = discard(child)
        child = current = deadline = header = nil
        proto.puts(JSON.generate({ "end" => true, "clean" => alone && wipe_tmp(tmp_mode) }))
        child = fork_child(proto, results)
      end
    end
  end
end

ChipgymWorker.serve
