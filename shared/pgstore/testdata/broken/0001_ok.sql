CREATE TABLE ok_before (id int);
