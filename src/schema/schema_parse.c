/* (being written) */ typedef int avki_placeholder_schema_parse;
