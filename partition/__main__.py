from partition.cli import main

raise SystemExit(main())
