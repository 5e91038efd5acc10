# chipgym's KLayout DRC worker. It runs inside the sandbox as `klayout -b -r klayout_worker.rb`.
#
# Protocol: one JSON job per line on stdin
#   {"id": N, "deck": TEXT, "layouts": [PATH, ...], "timeout": SECONDS, "max_markers": M}
# and one JSON reply per line on the original stdout
#   {"id": N, "results": [{"status": ..., "error": ..., "categories": {NAME: {"count": C, "markers": [...]}}}, ...]}
#
# This process never evaluates deck code. Every deck runs in a fresh fork of it, so a deck that
# monkeypatches the DRC engine, leaves a thread or forges output cannot touch a later deck. After each
# job every other process in the sandbox's pid namespace is killed.
require 'json'
require 'fiddle'

module ChipgymWorker
  REPORT = "/tmp/report.lyrdb"
  LOG = "/tmp/deck.log"
  MAX_REPLY_BYTES = 64 << 20

  module_function

  # A non-dumpable process cannot be ptraced or have its /proc files opened by its same-uid children.
  def make_undumpable
    libc = Fiddle.dlopen(nil)
    prctl = Fiddle::Function.new(libc["prctl"], [Fiddle::TYPE_INT] + [Fiddle::TYPE_LONG] * 4, Fiddle::TYPE_INT)
    prctl.call(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE = 4
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

  def read_report(dbu, max_markers)
    rdb = RBA::ReportDatabase.new("")
    rdb.load(REPORT)
    categories = {}
    rdb.each_category do |cat|
      count = 0
      markers = []
      rdb.each_item_per_category(cat.rdb_id) do |item|
        count += 1
        item.each_value { |v| markers << marker(v, dbu) } if markers.size < max_markers
      end
      # Two outputs to one category name make two categories of that name: count them as one.
      merged = categories[cat.name] ||= { "count" => 0, "markers" => [] }
      merged["count"] += count
      merged["markers"].concat(markers.first(max_markers - merged["markers"].size))
    end
    { "status" => "ok", "error" => "", "categories" => categories }
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
      engine.instance_eval(deck, "deck.drc")
      source = engine.instance_variable_get(:@def_source)
      dbu = source.layout.dbu if source
      engine._finish
    rescue SyntaxError, ScriptError => e
      return failure("compile", error_text(e))
    rescue Exception => e
      return failure("runtime", error_text(e))
    end
    return failure("no_report", "the deck wrote no report to $output (call report(title, $output))") unless File.exist?(REPORT)
    read_report(dbu, max_markers)
  rescue Exception => e
    failure("runtime", "reading the report failed: #{error_text(e)}")
  end

  # Kills every process in the sandbox but this one and the namespace's init, until none is left.
  def kill_others
    100.times do
      others = Dir.children("/proc").grep(/\A\d+\z/).map(&:to_i) - [1, Process.pid]
      return if others.empty?
      Process.kill(:KILL, -1) rescue nil
      loop { Process.wait(-1, Process::WNOHANG) or break } rescue nil
      sleep 0.001
    end
  end

  # The child's exit status, when it ends within a second of closing its result pipe.
  def exit_status(pid)
    100.times do
      _, status = Process.wait2(pid, Process::WNOHANG)
      return status if status
      sleep 0.01
    end
    nil
  rescue SystemCallError
    nil
  end

  def log_tail
    File.exist?(LOG) ? File.binread(LOG, 2000, [File.size(LOG) - 2000, 0].max).to_s.scrub.strip : ""
  end

  Child = Struct.new(:pid, :job, :results)

  # Forks a child that waits for one job on its own pipe. Forking takes tens of milliseconds, so the
  # worker keeps one such child ready while it is idle. The child starts from this process's state
  # between jobs, and never sees another deck: every process but this one is killed after each job.
  def fork_child(proto)
    job_reader, job_writer = IO.pipe
    result_reader, result_writer = IO.pipe
    pid = fork do
      [job_writer, result_reader, proto].each(&:close)
      STDIN.reopen(File::NULL)
      STDOUT.reopen(LOG, "w")
      STDERR.reopen(STDOUT)
      # KLayout's _finish forces two full garbage collections; this process is discarded after the deck.
      GC.singleton_class.send(:define_method, :start) { |*_args, **_kw| nil }
      job = JSON.parse(job_reader.read)
      job_reader.close
      job["layouts"].each do |layout|
        start = now
        result = run_deck(job["deck"], layout, job["max_markers"])
        result_writer.puts(JSON.generate(result.merge("seconds" => now - start)))
      end
      result_writer.flush
      exit!(0)
    end
    [job_reader, result_writer].each(&:close)
    Child.new(pid, job_writer, result_reader)
  end

  # Runs the deck in the child on the layouts in turn; returns the results the child gave before it
  # ended, timed out or died (at least one: the failure of the layout it was on).
  def run_in_child(child, deck, layouts, timeout, max_markers)
    begin
      child.job.write(JSON.generate({ "deck" => deck, "layouts" => layouts, "max_markers" => max_markers }))
    rescue SystemCallError
      nil  # the child is gone; reading its results below says so
    end
    child.job.close
    reader = child.results
    results = []
    buffer = +""
    deadline = now + timeout
    while results.size < layouts.size
      left = deadline - now
      if left <= 0
        results << failure("timeout", "the deck ran longer than #{timeout} s on one layout and was killed")
        break
      end
      next unless IO.select([reader], nil, nil, left)
      chunk = reader.read_nonblock(1 << 20, exception: false)
      next if chunk == :wait_readable
      if chunk.nil?
        status = exit_status(child.pid)
        kill_others
        how = status ? (status.signaled? ? "was killed by signal #{status.termsig}" : "exited with status #{status.exitstatus}") : "ended"
        results << failure("crashed", "the deck's process #{how}. Output: #{log_tail}")
        break
      end
      buffer << chunk
      if buffer.bytesize > MAX_REPLY_BYTES
        results << failure("crashed", "the deck's process wrote more than #{MAX_REPLY_BYTES} bytes of results")
        break
      end
      while (line = buffer.slice!(/\A[^\n]*\n/))
        results << (JSON.parse(line) rescue failure("crashed", "the deck's process wrote an unreadable result"))
        deadline = now + timeout
      end
    end
    reader.close
    results
  end

  def run_job(job, proto, ready_child)
    layouts = job["layouts"]
    results = []
    child = ready_child
    while results.size < layouts.size
      child ||= (kill_others; fork_child(proto))
      results.concat(run_in_child(child, job["deck"], layouts[results.size..], job["timeout"], job["max_markers"]))
      child = nil
    end
    results.first(layouts.size)
  end

  def serve
    proto = STDOUT.dup
    proto.sync = true
    STDOUT.reopen(File::NULL)
    make_undumpable
    proto.puts(JSON.generate({ "ready" => true, "klayout" => RBA::Application.instance.version }))
    loop do
      ready_child = fork_child(proto)
      line = STDIN.gets or break
      job = JSON.parse(line)
      proto.puts(JSON.generate({ "id" => job["id"], "results" => run_job(job, proto, ready_child) }))
      kill_others  # after the reply: a process's exit takes milliseconds that the caller need not wait for
    end
  end
end

ChipgymWorker.serve
