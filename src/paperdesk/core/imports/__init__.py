"""Reading files into the library: the Daily Papers text format (daily_papers) and
paperdesk's own JSON export (paperdesk_json)."""
