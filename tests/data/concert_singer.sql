-- A small Spider-style database (the concert_singer schema, our own rows), loaded as one script
-- into SQLite and into PostgreSQL by the tests (tests/test_servers_sql.py): portable DDL only.
CREATE TABLE stadium (stadium_id INTEGER PRIMARY KEY, location TEXT, name TEXT, capacity INTEGER,
                      highest INTEGER, lowest INTEGER, average INTEGER);
CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT, song_name TEXT,
                     song_release_year TEXT, age INTEGER, is_male TEXT);
CREATE TABLE concert (concert_id INTEGER PRIMARY KEY, concert_name TEXT, theme TEXT,
                      stadium_id INTEGER REFERENCES stadium (stadium_id), year TEXT);
CREATE TABLE singer_in_concert (concert_id INTEGER REFERENCES concert (concert_id),
                                singer_id INTEGER REFERENCES singer (singer_id),
                                PRIMARY KEY (concert_id, singer_id));
INSERT INTO stadium VALUES (1, 'Raith Rovers', 'Stark''s Park', 10104, 4812, 1294, 2106),
  (2, 'Ayr United', 'Somerset Park', 11998, 2363, 1057, 1477),
  (3, 'East Fife', 'Bayview Stadium', 2000, 1980, 533, 864),
  (4, 'Queen''s Park', 'Hampden Park', 52500, 1763, 466, 730),
  (5, 'Stirling Albion', 'Forthbank Stadium', 3808, 1125, 404, 642);
INSERT INTO singer VALUES (1, 'Joe Sharp', 'Netherlands', 'You', '1992', 52, 'F'),
  (2, 'Timbaland', 'United States', 'Dangerous', '2008', 32, 'T'),
  (3, 'Justin Brown', 'France', 'Hey Oh', '2013', 29, 'T'),
  (4, 'Rose White', 'France', 'Sun', '2003', 41, 'F'),
  (5, 'John Nizinik', 'France', 'Gentleman', '2014', 43, 'T'),
  (6, 'Tribal King', 'France', 'Love', '2016', 25, 'T');
INSERT INTO concert VALUES (1, 'Auditions', 'Free choice', 1, '2014'), (2, 'Super bootcamp', 'Free choice 2', 2, '2014'),
  (3, 'Home Visits', 'Bleeding Love', 2, '2015'), (4, 'Week 1', 'Wide Awake', 3, '2014'),
  (5, 'Week 1', 'Happy Tonight', 3, '2015'), (6, 'Week 2', 'Party All Night', 5, '2015');
INSERT INTO singer_in_concert VALUES (1, 2), (1, 3), (1, 5), (2, 3), (2, 6), (3, 5), (4, 4), (5, 6), (5, 3), (6, 2);
