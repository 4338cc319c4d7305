/* (being written) */ typedef int avki_placeholder_json_write;
